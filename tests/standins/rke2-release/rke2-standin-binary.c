/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright: numa.kubelet contributors; GNU General Public License v3.0+ (see LICENSE or
 * https://www.gnu.org/licenses/gpl-3.0.txt)
 *
 * rke2 (STAND-IN): the `rke2` binary of the RKE2 STAND-IN that tests/lablabs installs through lablabs.rke2's airgap
 * `copy` mode. It is NOT RKE2. Like the real binary it is the service's main process and supervises the kubelet as a
 * child, so that lablabs.rke2's version check (tasks/rke2.yml: `realpath /proc/<MainPID>/exe` then `--version`) reads
 * the running version from it:
 *   rke2 --version | -v      prints "rke2 version <V> (<commit>)" and a go line, V from VERSION_FILE
 *   rke2 server | agent      runs /usr/local/bin/rke2-standin <role> (the image's RKE2 stand-in, which turns the
 *                            config into kubelet flags and execs the kubelet stand-in) with RKE2_STANDIN_VERSION=V,
 *                            forwards SIGTERM/SIGINT to it and exits with its status.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define VERSION_FILE "/usr/local/share/rke2-standin/version"
#define PYTHON "/usr/bin/python3"
#define RKE2_STANDIN "/usr/local/bin/rke2-standin" /* installed from the same tarball */

static pid_t child = -1;

static void forward(int signal_number) {
    if (child > 0) kill(child, signal_number);
}

static void read_version(char *version, size_t size) {
    FILE *file = fopen(VERSION_FILE, "r");
    if (!file || !fgets(version, (int)size, file)) {
        fprintf(stderr, "rke2 (STAND-IN, not RKE2): cannot read %s\n", VERSION_FILE);
        exit(1);
    }
    fclose(file);
    version[strcspn(version, "\r\n")] = '\0';
}

int main(int argc, char **argv) {
    char version[128];
    read_version(version, sizeof version);
    if (argc == 2 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-v"))) {
        printf("rke2 version %s (0000000000000000000000000000000000000000)\ngo version go1.23.8 X:boringcrypto\n", version);
        return 0;
    }
    if (argc != 2 || (strcmp(argv[1], "server") && strcmp(argv[1], "agent"))) {
        fprintf(stderr, "rke2 (STAND-IN for numa.kubelet tests, not RKE2): only --version, server and agent are supported\n");
        return 1;
    }
    if (setenv("RKE2_STANDIN_VERSION", version, 1) != 0) return 1;
    signal(SIGTERM, forward);
    signal(SIGINT, forward);
    child = fork();
    if (child < 0) return 1;
    if (child == 0) {
        execl(PYTHON, PYTHON, RKE2_STANDIN, argv[1], (char *)NULL);
        fprintf(stderr, "rke2 (STAND-IN): exec %s failed: %s\n", RKE2_STANDIN, strerror(errno));
        _exit(127);
    }
    int status = 0;
    while (waitpid(child, &status, 0) < 0) {
        if (errno != EINTR) return 1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
