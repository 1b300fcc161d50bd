/* fair_vrf.h -- the door of `fairshuf fair` onto scheme fairshuf-vrf-1
 * (fair_vrf.c). */
#ifndef FS_FAIR_VRF_CLI_H
#define FS_FAIR_VRF_CLI_H

/* 1 when the command line is one of fair_vrf.c's: an action vrf-* or a
 * --public-key option (`fair check --public-key`). */
int fair_vrf_wants(int argc, char **argv);

/* `fairshuf fair vrf-*` and `fairshuf fair check --public-key`. */
int cmd_fair_vrf(int argc, char **argv);

#endif
