/* The compilations in flight in this process (kclaim.h): a small set of
 * cache keys under one lock, and a condition variable that wakes the
 * waiters when one is released. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/kclaim.h"

#define KEYLEN 33

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t released = PTHREAD_COND_INITIALIZER;
static char (*keys)[KEYLEN];
static int nkeys, cap;

static int find(const char *key)
{
    for (int i = 0; i < nkeys; i++)
        if (strncmp(keys[i], key, KEYLEN) == 0)
            return i;
    return -1;
}

bool gc__kclaim_acquire(const char *key)
{
    bool waited = false;

    pthread_mutex_lock(&lock);
    while (find(key) >= 0) {
        waited = true;
        pthread_cond_wait(&released, &lock);
    }
    if (!waited && nkeys == cap) {
        int ncap = cap ? 2 * cap : 16;
        char(*p)[KEYLEN] = realloc(keys, (size_t)ncap * sizeof(*p));

        /* Without room the key is compiled unclaimed: only time is lost. */
        if (!p) {
            pthread_mutex_unlock(&lock);
            return true;
        }
        keys = p;
        cap = ncap;
    }
    if (!waited) {
        strncpy(keys[nkeys], key, KEYLEN - 1);
        keys[nkeys][KEYLEN - 1] = '\0';
        nkeys++;
    }
    pthread_mutex_unlock(&lock);
    return !waited;
}

void gc__kclaim_release(const char *key)
{
    pthread_mutex_lock(&lock);
    int i = find(key);

    if (i >= 0) {
        memmove(keys[i], keys[i + 1], (size_t)(nkeys - i - 1) * sizeof(*keys));
        nkeys--;
    }
    if (nkeys == 0) {
        free(keys);
        keys = NULL;
        cap = 0;
    }
    pthread_cond_broadcast(&released);
    pthread_mutex_unlock(&lock);
}
