/* Whether an MPI launcher (mpirun, mpiexec, srun) started this process as
 * one of several ranks: 'gpuchar run' without --mpi refuses to run so, since
 * every rank would measure alone and write over the others' files. */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

bool gc__under_mpi_launcher(char *what, size_t len)
{
    /* Open MPI, MPICH's and Intel MPI's hydra, Slurm's srun. */
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS"};

    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = getenv(vars[i]);

        if (v && atoi(v) > 1) {
            snprintf(what, len, "%s=%s", vars[i], v);
            return true;
        }
    }
    return false;
}
