# long.bash -- pick LONG SHORT: a test matrix's long list under
# FS_TEST_LONG=1 (make check-long), else the short one that `make check`
# samples from it, reaching the same code paths in fewer runs (of
# fairshuf-mpi, whose mpirun start costs about half a second each, or of
# many short processes).
pick() {
    if [ -n "${FS_TEST_LONG:-}" ]; then echo "$1"; else echo "$2"; fi
}
