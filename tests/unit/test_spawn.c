/* util/spawn: a helper started with gc__spawn_self is this program again,
 * with the setting added to the environment this program started with
 * (whatever a library rewrote in the live one since), the socket as standard
 * input, and none of this process's other descriptors open (a driver's
 * descriptors opened without close-on-exec included). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/spawn.h"

#define HELPER_ENV "GC_TEST_SPAWN_HELPER"
/* Set when this test starts itself: a list that a library tokenises in
 * place, as an OpenCL ICD loader does with OCL_ICD_FILENAMES. */
#define LIST_ENV "GC_TEST_SPAWN_LIST"
#define LIST_VALUE "libfirst.so:libsecond.so"

/* The helper's side: reports on standard input (the socket) which of the
 * descriptors 3..63 are open, whether 0 is a socket, the setting and the
 * list. */
static int helper(const char *setting)
{
    char line[512];
    int n = 0, open_fds = 0;
    struct stat st;

    for (int d = 3; d < 64; d++)
        if (fcntl(d, F_GETFD) >= 0)
            open_fds++;
    n = snprintf(line, sizeof(line), "socket=%d open=%d setting=%s list=%s\n",
                 fstat(0, &st) == 0 && S_ISSOCK(st.st_mode), open_fds, setting,
                 getenv(LIST_ENV) ? getenv(LIST_ENV) : "(unset)");
    return write(0, line, (size_t)n) == n ? 0 : 1;
}

static void test_child_sees_only_its_own(void **state)
{
    char why[256] = "", buf[512] = "";
    int fd = -1, leak, status = 0;
    pid_t pid = -1;
    ssize_t got, n = 0;

    (void)state;
    /* A descriptor opened without close-on-exec, as a driver may. */
    leak = open("/dev/null", O_RDONLY);
    assert_true(leak >= 3);
    assert_int_equal(fcntl(leak, F_GETFD) & FD_CLOEXEC, 0);
    setenv(HELPER_ENV, "stale", 1);
    /* A library's strtok on the live value leaves "libfirst.so" there. */
    assert_non_null(getenv(LIST_ENV));
    assert_non_null(strtok(getenv(LIST_ENV), ":"));
    assert_string_equal(getenv(LIST_ENV), "libfirst.so");
    assert_int_equal(
        gc__spawn_self("gc-test-spawn", HELPER_ENV "=fresh", &pid, &fd, why, sizeof(why)), 0);
    unsetenv(HELPER_ENV);
    while ((got = read(fd, buf + n, sizeof(buf) - 1 - (size_t)n)) > 0)
        n += got;
    buf[n] = '\0';
    close(fd);
    close(leak);
    assert_int_equal(gc__spawn_wait(pid, &status, NULL), 0);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_string_equal(buf, "socket=1 open=0 setting=fresh list=" LIST_VALUE "\n");
}

int main(int argc, char **argv)
{
    const char *setting = getenv(HELPER_ENV);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_child_sees_only_its_own),
    };

    (void)argc;
    if (setting)
        return helper(setting);
    /* The list must be there when the program starts: start again with it. */
    if (!getenv(LIST_ENV)) {
        setenv(LIST_ENV, LIST_VALUE, 1);
        execv("/proc/self/exe", argv);
        perror("test_spawn: cannot start itself again");
        return 1;
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
