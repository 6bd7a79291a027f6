/* 'gpuchar run --mpi' in a build without MPI: says how to get one. */
#include <stdio.h>

#include "cli.h"

int gc__fleet_mpi_run(const struct gc_cli_mpi *m)
{
    (void)m;
    fprintf(stderr, "gpuchar run: --mpi needs a build with MPI: install Open MPI's development "
                    "files (Debian/Ubuntu: apt-get install libopenmpi-dev openmpi-bin) and "
                    "configure and build again (cmake -DGC_MPI=ON)\n");
    return GC_CLI_EXIT_USAGE;
}

const char *gc__fleet_mpi_library(void)
{
    return NULL;
}
