/*
 * A JS job in namespaces of its own (docs/sandboxes.md, "Between jobs", rule 0): the node worker starts
 * each job's process through this launcher instead of a plain fork. The walls are the Python job's,
 * made by the same code: `ts_enter` of the fork server's C file (included below), with the plan
 * jobns._plan makes (the sandbox's writable mounts as fresh tmpfs, the host-socket folders hidden, a
 * devpts instance of its own) and the job filter jobns._assemble makes, both built here in C (the node
 * image has no Python); `--print-filter` prints the program so a test compares it with Python's.
 *
 *   jobns-launch [--keep DIR] [--rooted [--uid N]] [--clean FD] [--probe | --print-filter] -- PROGRAM ARGS...
 *
 * The launcher clones a process into user, pid, mount and IPC namespaces (exactly the flags the
 * container's and bubblewrap's filters let through), which enters its walls and execs PROGRAM with every
 * descriptor it was given (node's IPC channel among them); the launcher waits and ends as it ended (its
 * exit status, or the same signal). The worker ends a job with SIGTERM to the launcher, which kills the
 * job's pid 1 (the kernel then ends everything in its pid namespace) and reaps it: the worker reaps
 * only its own children, never a job's orphaned pid 1. When the launcher dies first (SIGKILL: the
 * sweep, or the worker's 2 s for a launcher that did not end its job) the job's pid 1 gets SIGKILL too
 * (PR_SET_PDEATHSIG), and becomes the worker's zombie: the worker then stops, to be replaced
 * (worker.mjs, betweenJobs). `--keep DIR`: the
 * worker's own folder, bound back into a fresh mount that would cover it (bubblewrap's /tmp). `--probe`:
 * the walls planned (`plan NAME` lines: each mount, `pts`) and then those made, one name a line on
 * stdout, then exit 0 (the worker asks once whether this level allows them all). A job's process gets
 * the names of the walls it has in TOOLSMITH_JOB_WALLS (comma-separated, the namespaces first: `user`,
 * `pid`, `ipc`), which the worker's code in it sends as its first message, before it is given its job
 * (worker.mjs wallsRefused: a process short of a wall the probe found is never given one).
 * `--rooted` (gVisor, the worker root with docker.ts's JOB_UID_CAPS; `--uid N` the job's uid and gid,
 * 100000-100999): pid, IPC and network namespaces and a tree of its own instead (enter_tree below, as the Python
 * fork server's jobns.enter_rooted). `--clean FD` (deno's worker, which can neither sweep nor wipe): once
 * the job's pid 1 is gone, the launcher sweeps and wipes as the node worker's betweenJobs does and reports
 * on FD (below, "cleanup after the job"). Every job's process also gets the IPC filter (deny_ipc: no SysV
 * IPC or POSIX message queue), as the Python fork server's children. Test switches (TOOLSMITH_TEST_WALLS):
 * `noseccomp`, `noipcfilter`, `nonetns` (a
 * rooted job without its network namespace: bench:js-jobns's `BENCH_AB=netns`), and
 * `jobskip-pid`, `jobskip-uid`: a job's process (not the probe's) made without its pid namespace, or
 * without its uid (rooted), so that the worker's per-job check is what refuses it; `launchplain`: every
 * job's process, and the probe's, a plain fork (no namespace, mount or tree; its filter and, rooted, its
 * uid kept), so the cleanup behind them is what holds; `nosweep`, `nowipe`: that part of `--clean` off.
 * Refused by the kernel at a job's start: the reason on stderr and exit 70, the job never runs.
 * So are a probe and a job where a writable mount would stay out of the plan (more than MAX_MOUNTS - 2 of
 * them, or no mountinfo to find them in): such a mount would be shared by every job, and the probe, which
 * checks only what was planned, would not see it.
 *
 * Built static on the host (`cc -static`, images.ts buildJobLauncher): the node, bun and deno images have
 * no C library of their own to link against besides the runtime's.
 */
#include "forkloop.c"

#include <dirent.h>
#include <grp.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/statvfs.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/utsname.h>
#include <time.h>

#define JOB_FLAGS (CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC)
#define NS_FLAGS \
    (CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | 0x00000080)
#define MAX_MOUNTS 24
/* gVisor ("rooted" jobs, as the Python fork server's jobns.enter_rooted): no user namespace, a tree of its own;
 * a network stack of its own (CLONE_NEWNET, its loopback up; `nonetns` leaves it out): no port or abstract
 * socket of the worker's side or of another job reachable */
#define ROOTED_FLAGS (CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWNET)
#define JOBS_DIR "/mnt"
#define JOB_UID_BASE 100000u
#define JOB_UID_COUNT 1000u

static const char *const HIDDEN[] = {"/run/toolsmith-protocol", "/run/toolsmith-egress"};

/* ---------------------------------------------------------------- the job filter (jobns._assemble) */

struct insn {
    uint16_t code;
    uint8_t jt, jf;
    uint32_t k;
};

struct arch {
    uint32_t audit;
    int clone, clone3;
    int mknod, mknod_arg; /* -1: none */
    int mknodat, mknodat_arg;
    const int *deny;
    int ndeny;
};

/* jobns._ARCH's "deny" numbers, per architecture (the test compares the program with Python's) */
static const int DENY_X86_64[] = {272, 308, 165, 166, 155, 161, 430, 431, 432, 433, 429, 428, 442, 101, 310, 311, 440,
                                  438, 312, 321, 298, 323, 425, 426, 427, 250, 248, 249, 300, 304, 303, 135, 126};
static const int DENY_AARCH64[] = {97, 268, 40, 39, 41, 51, 430, 431, 432, 433, 429, 428, 442, 117, 270, 271, 440,
                                   438, 272, 280, 241, 282, 425, 426, 427, 219, 217, 218, 262, 265, 264, 92, 91};

static int machine_arch(struct arch *a) {
    struct utsname u;
    if (uname(&u) != 0) return -1;
    if (strcmp(u.machine, "x86_64") == 0) {
        *a = (struct arch){0xC000003E, 56, 435, 133, 1, 259, 2, DENY_X86_64, (int)(sizeof DENY_X86_64 / sizeof(int))};
        return 0;
    }
    if (strcmp(u.machine, "aarch64") == 0) {
        *a = (struct arch){0xC00000B7, 220, 435, -1, 0, 33, 2, DENY_AARCH64, (int)(sizeof DENY_AARCH64 / sizeof(int))};
        return 0;
    }
    return -1;
}

static int cmp_int(const void *x, const void *y) {
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

enum { L_NONE = 0, L_ALLOW = -1, L_DENY = -2, L_ENOSYS = -3 }; /* jump targets before they are resolved */

struct pending {
    uint16_t code;
    int jt, jf; /* >= 0: a plain offset; < 0: a label */
    uint32_t k;
};

/* The same program as jobns._assemble, instruction for instruction: its length, or -1. */
static int assemble(const struct arch *a, struct insn *out, int max) {
    struct pending p[128];
    int n = 0;
    int deny[64];
    int nd = 0;
    for (int i = 0; i < a->ndeny && nd < 64; i++) {
        int seen = 0;
        for (int j = 0; j < nd; j++) seen |= deny[j] == a->deny[i];
        if (!seen) deny[nd++] = a->deny[i];
    }
    qsort(deny, (size_t)nd, sizeof(int), cmp_int);
#define P(c, t, f, kk) (p[n++] = (struct pending){(c), (t), (f), (uint32_t)(kk)})
    P(0x20, 0, 0, 4);
    P(0x15, 0, L_DENY, a->audit);
    P(0x20, 0, 0, 0);
    P(0x35, L_DENY, 0, 0x40000000);
    for (int i = 0; i < nd; i++) P(0x15, L_DENY, 0, deny[i]);
    int calls[2][2] = {{a->mknod, a->mknod_arg}, {a->mknodat, a->mknodat_arg}};
    for (int c = 0; c < 2; c++) {
        if (calls[c][0] < 0) continue;
        P(0x15, 0, 4, calls[c][0]);
        P(0x20, 0, 0, 16 + 8 * calls[c][1]);
        P(0x54, 0, 0, 0xF000);
        P(0x15, L_DENY, 0, 0x2000);
        P(0x15, L_DENY, L_ALLOW, 0x6000);
    }
    P(0x15, L_ENOSYS, 0, a->clone3);
    P(0x15, 0, L_ALLOW, a->clone);
    P(0x20, 0, 0, 16);
    P(0x45, L_DENY, L_ALLOW, NS_FLAGS);
    int allow = n;
    P(0x06, 0, 0, 0x7FFF0000);
    P(0x06, 0, 0, 0x00050000 | 1);
    P(0x06, 0, 0, 0x00050000 | 38);
#undef P
    if (n > max) return -1;
    for (int i = 0; i < n; i++) {
        int jt = p[i].jt, jf = p[i].jf;
        if (jt < 0) jt = allow + (-jt - 1) - i - 1;
        if (jf < 0) jf = allow + (-jf - 1) - i - 1;
        out[i] = (struct insn){p[i].code, (uint8_t)jt, (uint8_t)jf, p[i].k};
    }
    return n;
}

/* ---------------------------------------------------------------- the plan (jobns._plan) */

struct plan_store {
    struct ts_mount mounts[MAX_MOUNTS];
    char text[MAX_MOUNTS][3][4200]; /* target, data, keep */
    int n;
    int pts;
    /* why a writable mount would stay out of the plan (shared by every job): no job is started then */
    char refused[4400];
};

/* mountinfo's octal escapes (\040 ...) undone in place */
static void unescape(char *s) {
    char *o = s;
    for (char *i = s; *i; i++) {
        if (i[0] == '\\' && i[1] >= '0' && i[1] <= '7' && i[2] >= '0' && i[2] <= '7' && i[3] >= '0' && i[3] <= '7') {
            *o++ = (char)((i[1] - '0') * 64 + (i[2] - '0') * 8 + (i[3] - '0'));
            i += 3;
        } else {
            *o++ = *i;
        }
    }
    *o = '\0';
}

static int is_dir(const char *p) {
    int fd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return 0;
    close(fd);
    return 1;
}

static int under(const char *path, const char *dir) {
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/') n--;
    if (n == 1 && dir[0] == '/') return path[0] == '/' && path[1] != '\0';
    return strncmp(path, dir, n) == 0 && path[n] == '/';
}

/* hygiene.find_writable + jobns._plan: every read-write mount this user can write (but the worker's own
 * folder), a fresh tmpfs of the same size and mode (an mqueue a new mqueue), the worker's folder bound back
 * where it lives inside one; the host-socket folders hidden; /dev/pts when it is a devpts. */
static void make_plan(struct plan_store *s, const char *own, int rooted) {
    s->n = 0;
    s->pts = 0;
    s->refused[0] = '\0';
    FILE *f = fopen("/proc/self/mountinfo", "re");
    if (!f) {
        /* no mount can be planned: none is left shared by mistake either */
        snprintf(s->refused, sizeof s->refused, "cannot read /proc/self/mountinfo: %s", strerror(errno));
        return;
    }
    char line[8192];
    const uint64_t flags = MS_NOSUID | MS_NODEV | MS_NOEXEC;
    while (fgets(line, sizeof line, f)) {
        char *sep = strstr(line, " - ");
        if (!sep) continue;
        *sep = '\0';
        char *fields[6];
        int nf = 0;
        for (char *tok = strtok(line, " "); tok && nf < 6; tok = strtok(NULL, " ")) fields[nf++] = tok;
        if (nf < 6) continue;
        char fstype[64];
        if (sscanf(sep + 3, "%63s", fstype) != 1) continue;
        char point[4096];
        snprintf(point, sizeof point, "%s", fields[4]);
        unescape(point);
        if (strcmp(point, "/dev/pts") == 0 && strcmp(fstype, "devpts") == 0) s->pts = 1;
        char opts[256];
        snprintf(opts, sizeof opts, ",%s,", fields[5]);
        if (!strstr(opts, ",rw,")) continue;
        if (!strcmp(fstype, "proc") || !strcmp(fstype, "sysfs") || !strcmp(fstype, "cgroup") || !strcmp(fstype, "cgroup2") ||
            !strcmp(fstype, "devpts") || !strcmp(fstype, "devtmpfs"))
            continue;
        if (!strcmp(point, "/proc") || !strcmp(point, "/sys") || under(point, "/proc") || under(point, "/sys")) continue;
        if (own && strcmp(point, own) == 0) continue;
        if (strcmp(point, JOBS_DIR) == 0 || under(point, JOBS_DIR)) continue; /* (job trees: rooted) */
        if (!is_dir(point)) continue;
        if (rooted) {
            /* the launcher is root here: what a job's uid (never an owner) could write, others' write bit */
            struct stat wb;
            if (stat(point, &wb) != 0 || !(wb.st_mode & S_IWOTH)) continue;
        } else if (access(point, W_OK | X_OK) != 0) {
            continue;
        }
        int dup = 0;
        for (int i = 0; i < s->n; i++) dup |= strcmp(s->mounts[i].target, point) == 0;
        if (dup) continue;
        if (s->n >= MAX_MOUNTS - 2) {
            /* (room kept for the two hidden folders) */
            if (!s->refused[0])
                snprintf(s->refused, sizeof s->refused, "more than %d writable mounts (%s is one too many)",
                         MAX_MOUNTS - 2, point);
            continue;
        }
        int i = s->n;
        snprintf(s->text[i][0], sizeof s->text[i][0], "%s", point);
        struct ts_mount *m = &s->mounts[i];
        memset(m, 0, sizeof *m);
        m->target = s->text[i][0];
        m->flags = flags;
        if (strcmp(fstype, "mqueue") == 0) {
            m->source = "mqueue";
            m->fstype = "mqueue";
        } else {
            struct statvfs st;
            struct stat sb;
            if (statvfs(point, &st) != 0 || stat(point, &sb) != 0) continue;
            unsigned long long size = (unsigned long long)st.f_blocks * st.f_frsize;
            if (size < (1ULL << 20)) size = 1ULL << 20;
            snprintf(s->text[i][1], sizeof s->text[i][1], "size=%llu,mode=%o", size, (unsigned)(sb.st_mode & 07777));
            m->source = "tmpfs";
            m->fstype = "tmpfs";
            m->data = s->text[i][1];
            if (own && under(own, point)) {
                snprintf(s->text[i][2], sizeof s->text[i][2], "%s", own);
                m->keep = s->text[i][2];
            }
        }
        s->n++;
    }
    fclose(f);
    for (size_t h = 0; h < sizeof HIDDEN / sizeof HIDDEN[0]; h++) {
        if (!is_dir(HIDDEN[h])) continue;
        struct ts_mount *m = &s->mounts[s->n++];
        *m = (struct ts_mount){"tmpfs", HIDDEN[h], "tmpfs", MS_RDONLY | flags, "size=4096,mode=555", NULL};
    }
}

/* ts_enter's codes by name (jobns._C_WALLS); a mount's wall is "tmpfs:<point>" or "hidden:<point>" */
static void wall_name(const struct plan_store *s, int code, char *buf, size_t n) {
    static const char *const names[] = {"?", "ids", "uid", "mnt", "pts", "pts-refused", "proc", "nouserns", "proc-hidden", "nocaps", "seccomp"};
    if (code >= W_MOUNT0 && code - W_MOUNT0 < s->n) {
        const struct ts_mount *m = &s->mounts[code - W_MOUNT0];
        snprintf(buf, n, "%s:%s", m->flags & MS_RDONLY ? "hidden" : "tmpfs", m->target);
    } else if (code > 0 && code < (int)(sizeof names / sizeof names[0])) {
        snprintf(buf, n, "%s", names[code]);
    } else {
        snprintf(buf, n, "?%d", code);
    }
}

static int off(const char *wall) {
    const char *v = getenv("TOOLSMITH_TEST_WALLS");
    if (!v) return 0;
    size_t n = strlen(wall);
    for (const char *p = v; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && strncmp(p, wall, n) == 0) return 1;
        if (!e) break;
        p = e + 1;
    }
    return 0;
}

/* ---------------------------------------------------------------- rooted jobs (gVisor: jobns.enter_rooted) */

/* gVisor (runsc 20221219) refuses every mount in a child user namespace and has no mount namespace, so the
 * walls above cannot be made there. The container then starts the worker as root holding only CAP_SETUID,
 * CAP_SETGID, CAP_KILL, CAP_SYS_ADMIN and CAP_SYS_CHROOT (the sentry's, docker.ts JOB_UID_CAPS), and each
 * job's process (`--rooted`) is cloned into pid, IPC and network namespaces of its own, binds the sandbox's root at
 * JOBS_DIR/<launcher pid> (a tmpfs of the launchers'), mounts there a /proc of its own pid namespace, a fresh
 * tmpfs on each writable mount and an empty read-only /dev/pts, binds the sandbox's other mounts as they
 * are, chroots into it, takes the job's uid and gid (all ids), drops every capability and installs the
 * job filter; the launcher unmounts the tree once the job's pid 1 is gone (and a launcher starting
 * removes the trees whose launcher is gone). */

struct point {
    char path[512];
    char fstype[64];
};

static int depth(const char *p) {
    int n = 0;
    for (; *p; p++) n += *p == '/';
    return n;
}

static int by_depth(const void *x, const void *y) {
    const struct point *a = x, *b = y;
    int da = strcmp(a->path, "/") == 0 ? -1 : depth(a->path), db = strcmp(b->path, "/") == 0 ? -1 : depth(b->path);
    return (da > db) - (da < db);
}

/* The sandbox's mounts (mount point, type), parents first; their count, or -1. */
static int mount_points(struct point *out, int max) {
    FILE *f = fopen("/proc/self/mountinfo", "re");
    if (!f) return -1;
    char line[8192];
    int n = 0;
    while (n < max && fgets(line, sizeof line, f)) {
        char *sep = strstr(line, " - ");
        if (!sep) continue;
        *sep = '\0';
        char *fields[6];
        int nf = 0;
        for (char *tok = strtok(line, " "); tok && nf < 6; tok = strtok(NULL, " ")) fields[nf++] = tok;
        if (nf < 5 || sscanf(sep + 3, "%63s", out[n].fstype) != 1) continue;
        snprintf(out[n].path, sizeof out[n].path, "%s", fields[4]);
        unescape(out[n].path);
        n++;
    }
    fclose(f);
    qsort(out, (size_t)n, sizeof *out, by_depth);
    return n;
}

/* Unmounts a tree (one lazy unmount of its root; where that left mounts, each, deepest first) and removes
 * its folder. */
static void release_tree(const char *root) {
    umount2(root, MNT_DETACH);
    if (rmdir(root) == 0 || errno == ENOENT) return;
    static struct point pts[256];
    int n = mount_points(pts, 256);
    for (int i = n - 1; i >= 0; i--)
        if (strcmp(pts[i].path, root) == 0 || under(pts[i].path, root)) umount2(pts[i].path, MNT_DETACH);
    rmdir(root);
}

/* JOBS_DIR a tmpfs of the launchers' (mounted by the first), and the trees of launchers that are gone
 * removed (one killed before it could release its tree). 0, or -1 with the reason in `why`. */
static int jobs_dir(char *why, size_t n) {
    static struct point pts[256];
    int np = mount_points(pts, 256), mounted = 0;
    for (int i = 0; i < np; i++) mounted |= strcmp(pts[i].path, JOBS_DIR) == 0 && strcmp(pts[i].fstype, "tmpfs") == 0;
    if (!mounted && mount("tmpfs", JOBS_DIR, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=1m,mode=700") != 0) {
        snprintf(why, n, "mount a tmpfs at %s for the job trees: %s", JOBS_DIR, strerror(errno));
        return -1;
    }
    DIR *d = opendir(JOBS_DIR);
    if (!d) return 0;
    for (struct dirent *e; (e = readdir(d));) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 0 || pid == getpid()) continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;
        char root[64];
        snprintf(root, sizeof root, "%s/%ld", JOBS_DIR, pid);
        release_tree(root);
    }
    closedir(d);
    return 0;
}

static void add_wall(char *walls, size_t n, const char *name) {
    size_t len = strlen(walls);
    snprintf(walls + len, n - len, "%s%s", len ? "," : "", name);
}

/* In the job's new process (pid 1 of its pid, IPC and network namespaces, the launcher's capabilities still held):
 * its tree at `root`, the chroot into it, the job's ids. The walls made are added to `walls`. A tree bound
 * but not entered: exit 70 (never a job outside it). */
static void enter_tree(const struct plan_store *s, const char *root, char *walls, size_t nw) {
    write_file("/proc/self/oom_score_adj", "1000");
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd)) strcpy(cwd, "/");
    if (mount("/", root, NULL, MS_BIND, NULL) != 0) return;
    static struct point pts[256];
    int np = mount_points(pts, 256);
    const unsigned long flags = MS_NOSUID | MS_NODEV | MS_NOEXEC;
    char at[4700], name[4200];
    for (int i = 0; i < np; i++) {
        const char *p = pts[i].path;
        if (strcmp(p, "/") == 0 || under(p, "/proc") || strcmp(p, JOBS_DIR) == 0 || under(p, JOBS_DIR)) continue;
        int hidden = 0;
        for (size_t h = 0; h < sizeof HIDDEN / sizeof HIDDEN[0]; h++) hidden |= strcmp(p, HIDDEN[h]) == 0 || under(p, HIDDEN[h]);
        if (hidden) continue;
        if ((size_t)snprintf(at, sizeof at, "%s%s", root, p) >= sizeof at) continue;
        if (strcmp(p, "/proc") == 0) {
            if (mount("proc", at, "proc", flags, NULL) == 0) add_wall(walls, nw, "proc");
            continue;
        }
        if (strcmp(p, "/dev/pts") == 0 && strcmp(pts[i].fstype, "devpts") == 0) {
            /* gVisor: one devpts for the whole sandbox, no other mountable: no terminals for the job */
            if (mount("tmpfs", at, "tmpfs", MS_RDONLY | flags, "size=4096,mode=555") == 0) add_wall(walls, nw, "pts");
            continue;
        }
        int fresh = -1;
        for (int k = 0; k < s->n; k++)
            if (!(s->mounts[k].flags & MS_RDONLY) && strcmp(s->mounts[k].target, p) == 0) fresh = k;
        if (fresh >= 0) {
            const struct ts_mount *m = &s->mounts[fresh];
            if (mount(m->source, at, m->fstype, m->flags, m->data) == 0) {
                wall_name(s, W_MOUNT0 + fresh, name, sizeof name);
                add_wall(walls, nw, name);
            }
        } else {
            mount(p, at, NULL, MS_BIND, NULL);
        }
    }
    if (chdir(root) != 0 || chroot(".") != 0) _exit(70);
    add_wall(walls, nw, "root");
    for (size_t h = 0; h < sizeof HIDDEN / sizeof HIDDEN[0]; h++) {
        /* the host's sockets: their folders are empty here (the sandbox's mounts there not carried) */
        DIR *d = opendir(HIDDEN[h]);
        int empty = 1;
        if (d) {
            for (struct dirent *e; (e = readdir(d));) empty &= strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
            closedir(d);
        }
        if (is_dir(HIDDEN[h]) && empty) {
            snprintf(name, sizeof name, "hidden:%s", HIDDEN[h]);
            add_wall(walls, nw, name);
        }
    }
    if (chdir(cwd) != 0 && chdir("/") != 0) _exit(70);
}

/* Every id the job's (the launcher was root: its capabilities then go with _drop_all below). */
static int take_uid(unsigned int uid) {
    uid_t r, e, s;
    gid_t gr, ge, gs;
    return setgroups(0, NULL) == 0 && setresgid(uid, uid, uid) == 0 && setresuid(uid, uid, uid) == 0 &&
           getresuid(&r, &e, &s) == 0 && getresgid(&gr, &ge, &gs) == 0 && r == uid && e == uid && s == uid &&
           gr == uid && ge == uid && gs == uid;
}

/*
 * SysV IPC and POSIX message queues refused to the job (EPERM for shmget, semget, msgget and mq_open, and
 * for every call of another ABI), as the Python fork server's hygiene.deny_ipc does for its children: a
 * wall behind the job's IPC namespace (gVisor ignores Docker's IPC sysctls of 0, and a job's namespace
 * has the kernel's defaults), stacked on the job's filter. `noipcfilter` (tests) leaves it out, so that
 * the namespace and the cleanup behind it are tested alone. 1 when it is in place.
 */
static int deny_ipc(void) {
    static const int X86_64[4] = {29, 64, 68, 240}, AARCH64[4] = {194, 190, 186, 180};
    struct utsname u;
    uint32_t audit;
    const int *calls;
    if (uname(&u) != 0) return 0;
    if (strcmp(u.machine, "x86_64") == 0) audit = 0xC000003E, calls = X86_64;
    else if (strcmp(u.machine, "aarch64") == 0) audit = 0xC00000B7, calls = AARCH64;
    else return 0;
    /* (the same program as hygiene.deny_ipc: 8 is the allow, 9 the deny) */
    struct insn p[10] = {{0x20, 0, 0, 4}, {0x15, 0, 7, audit}, {0x20, 0, 0, 0}, {0x35, 5, 0, 0x40000000}};
    for (int k = 0; k < 4; k++) p[4 + k] = (struct insn){0x15, (uint8_t)(4 - k), 0, (uint32_t)calls[k]};
    p[8] = (struct insn){0x06, 0, 0, 0x7FFF0000};
    p[9] = (struct insn){0x06, 0, 0, 0x00050000 | 1};
    struct {
        uint16_t len;
        const struct insn *filter;
    } f = {10, p};
    return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 && prctl(PR_SET_SECCOMP, 2, &f, 0, 0) == 0;
}

/* The last two walls of every rooted job: no capability (all three sets), then the job's filter. */
static void last_walls(const void *prog, char *walls, size_t nw) {
    struct {
        uint32_t version;
        int pid;
    } head = {0x20080522, 0};
    struct {
        uint32_t effective, permitted, inheritable;
    } data[2];
    memset(data, 0, sizeof data);
    if (syscall(SYS_capset, &head, data) == 0) add_wall(walls, nw, "nocaps");
    if (prog && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 && prctl(PR_SET_SECCOMP, 2, prog, 0, 0) == 0)
        add_wall(walls, nw, "seccomp");
}

/* ---------------------------------------------------------------- cleanup after the job (`--clean`) */

/* deno's worker may read no /proc and signal no process but its children (deno's permissions,
 * runtimes.ts), so it can neither sweep nor wipe as the node worker's betweenJobs does. With `--clean`
 * the launcher, which runs outside the job's namespaces (the worker's uid; rooted: root with
 * JOB_UID_CAPS), does both once the job's pid 1 is gone, before it exits: the second wall behind the
 * job's namespaces, which must hold alone. Its rules are betweenJobs'. The sweep ends every process but
 * the worker and its ancestors (the worker is pid 1 of the sandbox on runc: kill(-1, SIGKILL), which a
 * fork cannot slip past; below an init, every other process is stopped first, as the Python fork
 * server's sweep does) and must prove them gone (a scan during which no pid was handed out; where the
 * kernel does not say, two empty scans); rooted, it ends every process of the job's uid (the launcher
 * takes that uid, and kill(-1) then reaches those only). The wipe empties every writable mount (and the
 * working folder) back to what it held when the launcher started, before the job's process was made, as
 * the node worker's `remove` does (permissions restored, folders moved up, no recursion, links never
 * followed, no other mount entered), then checks that nothing else is left, and removes the SysV IPC
 * objects left in the sandbox's IPC namespace (ipc_clean). `--clean FD`: the launcher
 * then writes how it went on FD, a pipe only it holds (closed in the job's process before anything else,
 * and the launcher made non-dumpable once the job's process exists, so no process of its uid opens it
 * through /proc): `cleaned`, or `failed: <why>` (and exits CLEAN_FAILED). deno's exit status of a child it
 * signalled says nothing (it reports the signal it sent), and the job shares the launcher's stdout and
 * stderr, so neither could carry it; a launcher killed before it was done writes nothing. The worker
 * stops on anything but `cleaned` (worker.mjs launcherUnclean) rather than run the next job beside
 * leftovers. */

#define CLEAN_FAILED 71
#define MAX_WIPE 24
#define CLEAN_MS 1000

struct wipe_dir {
    char path[512];
    char **keep;
    int nkeep;
};

static struct wipe_dir wipe_dirs[MAX_WIPE];
static int nwipe;
static char clean_why[4096];
static int report_fd = -1;

static int has_name(char **names, int n, const char *name) {
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0) return 1;
    return 0;
}

/* The entries of `dir` (but . and ..), malloc'd; their count, or -1. */
static int list_dir(const char *dir, char ***out) {
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0, cap = 16;
    char **names = malloc(sizeof(char *) * (size_t)cap);
    for (struct dirent *e; names && (e = readdir(d));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        if (n == cap) {
            char **more = realloc(names, sizeof(char *) * (size_t)(cap *= 2));
            if (!more) break;
            names = more;
        }
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    *out = names;
    return names ? n : -1;
}

/* One place the wipe empties back to what it holds now (its mount points below it kept as names). */
static void add_wipe(const char *point, int rooted, const struct point *pts, int np) {
    if (!point[0] || strcmp(point, JOBS_DIR) == 0 || under(point, JOBS_DIR) || !is_dir(point)) return;
    struct stat sb;
    if (stat(point, &sb) != 0) return;
    /* (rooted: what a job's uid, never an owner here, could write: others' write bit, as make_plan) */
    if (rooted ? !(sb.st_mode & S_IWOTH) : access(point, W_OK | X_OK) != 0) return;
    for (int i = 0; i < nwipe; i++)
        if (strcmp(wipe_dirs[i].path, point) == 0) return;
    if (nwipe >= MAX_WIPE) return;
    struct wipe_dir *w = &wipe_dirs[nwipe];
    snprintf(w->path, sizeof w->path, "%s", point);
    w->nkeep = list_dir(point, &w->keep);
    if (w->nkeep < 0) return;
    size_t len = strlen(point);
    for (int i = 0; i < np; i++) {
        const char *p = pts[i].path, *slash = strrchr(p, '/');
        if (!under(p, point) || !slash || (size_t)(slash - p) != (len == 1 ? 0 : len)) continue;
        char **more = realloc(w->keep, sizeof(char *) * (size_t)(w->nkeep + 1));
        if (!more) break;
        w->keep = more;
        w->keep[w->nkeep++] = strdup(slash + 1);
    }
    nwipe++;
}

/* What the job may leave something in (betweenJobs' wipe list): every read-write mount a job's uid could
 * write (proc, sysfs, cgroup, devpts, devtmpfs and the job trees left out) and the working folder. */
static void wipe_plan(int rooted) {
    static struct point pts[256];
    int np = mount_points(pts, 256);
    nwipe = 0;
    FILE *f = fopen("/proc/self/mountinfo", "re");
    char line[8192], point[512];
    while (f && fgets(line, sizeof line, f)) {
        char *sep = strstr(line, " - ");
        if (!sep) continue;
        *sep = '\0';
        char *fields[6];
        int nf = 0;
        for (char *tok = strtok(line, " "); tok && nf < 6; tok = strtok(NULL, " ")) fields[nf++] = tok;
        char fstype[64], opts[256];
        if (nf < 6 || sscanf(sep + 3, "%63s", fstype) != 1) continue;
        snprintf(opts, sizeof opts, ",%s,", fields[5]);
        if (!strstr(opts, ",rw,")) continue;
        if (!strcmp(fstype, "proc") || !strcmp(fstype, "sysfs") || !strcmp(fstype, "cgroup") ||
            !strcmp(fstype, "cgroup2") || !strcmp(fstype, "devpts") || !strcmp(fstype, "devtmpfs"))
            continue;
        snprintf(point, sizeof point, "%s", fields[4]);
        unescape(point);
        if (!strcmp(point, "/proc") || !strcmp(point, "/sys") || under(point, "/proc") || under(point, "/sys")) continue;
        add_wipe(point, rooted, pts, np);
    }
    if (f) fclose(f);
    if (getcwd(point, sizeof point)) add_wipe(point, rooted, pts, np);
}

/* A process's state letter and parent from /proc/<pid>/stat; 0 when it is gone. */
static char proc_state(long pid, long *ppid) {
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return 0;
    buf[n] = '\0';
    char *rp = strrchr(buf, ')');
    if (!rp || rp[1] != ' ' || !rp[2]) return 0;
    if (ppid) *ppid = strtol(rp + 4, NULL, 10);
    return rp[2];
}

/* A process's real uid (/proc/<pid>/status), or -1. */
static long proc_uid(long pid) {
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/%ld/status", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return -1;
    buf[n] = '\0';
    char *u = strstr(buf, "\nUid:");
    return u ? strtol(u + 5, NULL, 10) : -1;
}

static pid_t anc[64];
static int nanc;

static int is_ancestor(long pid) {
    for (int i = 0; i < nanc; i++)
        if (anc[i] == pid) return 1;
    return 0;
}

/* The live processes the sweep must end (not zombies): rooted, those of `uid`; else every one but this
 * launcher and its ancestors (the worker, and an init above it). Their count; the first in `first`. */
static int live(int rooted, long uid, long *first) {
    DIR *d = opendir("/proc");
    if (!d) return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 0 || pid == getpid() || (!rooted && is_ancestor(pid))) continue;
        char st = proc_state(pid, NULL);
        if (st == 0 || st == 'Z' || st == 'X') continue;
        if (rooted && proc_uid(pid) != uid) continue;
        if (n++ == 0 && first) *first = pid;
    }
    closedir(d);
    return n;
}

static long last_pid(void) {
    char buf[32];
    int fd = open("/proc/sys/kernel/ns_last_pid", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return -1;
    buf[n] = '\0';
    return strtol(buf, NULL, 10);
}

static long now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* The sweep: 1 when nothing of the job is left, else 0 with the reason in clean_why. */
static int sweep(int rooted, unsigned int uid) {
    nanc = 0;
    for (long p = getppid(); p > 0 && nanc < 64;) {
        anc[nanc++] = (pid_t)p;
        long pp = 0;
        if (p == 1 || !proc_state(p, &pp)) break;
        p = pp;
    }
    /* below an init, kill(-1) would end the worker too (its uid): every other process is stopped first */
    int below_init = !rooted && !(nanc >= 1 && anc[0] == 1);
    if (rooted) {
        /* the job's uid: kill(-1) then reaches its processes only (not the worker's, root's, nor another
         * job uid's); every capability goes with root's ids, and the wipe then works as the job's owner */
        if (setgroups(0, NULL) != 0 || setresgid(uid, uid, uid) != 0 || setresuid(uid, uid, uid) != 0) {
            snprintf(clean_why, sizeof clean_why, "could not take the job's uid %u to end its processes: %s", uid,
                     strerror(errno));
            return 0;
        }
    }
    if (off("nosweep")) return 1; /* (tests: as betweenJobs, neither the kill nor the proof) */
    long end = now_ms() + CLEAN_MS, first = 0;
    int empty = 0;
    for (;;) {
        if (below_init) {
            kill(-1, SIGSTOP); /* (in one step a fork cannot slip past; then each killed while stopped) */
            DIR *d = opendir("/proc");
            for (struct dirent *e; d && (e = readdir(d));) {
                char *x;
                long pid = strtol(e->d_name, &x, 10);
                if (!*x && pid > 1 && pid != getpid() && !is_ancestor(pid)) kill((pid_t)pid, SIGKILL);
            }
            if (d) closedir(d);
            for (int i = 0; i < nanc; i++) kill(anc[i], SIGCONT);
        } else {
            kill(-1, SIGKILL); /* every process of this uid but this one and init (the worker) */
        }
        while (waitpid(-1, NULL, WNOHANG) > 0) {
        }
        long before = last_pid();
        int left = live(rooted, uid, &first);
        if (left == 0) {
            long after = last_pid();
            if (before >= 0 ? before == after : ++empty >= 2) return 1;
        } else {
            empty = 0;
        }
        if (now_ms() > end) {
            snprintf(clean_why, sizeof clean_why,
                     "%d process%s the job left could not be ended within %d ms (pid %ld among them)", left,
                     left == 1 ? "" : "es", CLEAN_MS, first);
            return 0;
        }
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
}

/* A file or a whole tree the job left, as betweenJobs' `remove`: folders get their owner's permissions
 * back first, every folder is moved up beside `top` before it is emptied (no path grows, nothing
 * recurses), links are removed and never followed, another mount is never entered. */
static void remove_tree(const char *top) {
    static unsigned long flat_count;
    struct stat root;
    if (lstat(top, &root) != 0) return;
    if (!S_ISDIR(root.st_mode)) {
        unlink(top);
        return;
    }
    char folder[512];
    snprintf(folder, sizeof folder, "%.511s", top);
    char *slash = strrchr(folder, '/');
    if (slash) *slash = '\0';
    int cap = 16, n = 0;
    char **queue = malloc(sizeof(char *) * (size_t)cap);
    if (!queue) return;
    queue[n++] = strdup(top);
    while (n > 0) {
        char *d = queue[--n];
        chmod(d, 0700);
        char **names = NULL;
        int nn = d ? list_dir(d, &names) : -1;
        for (int i = 0; i < nn; i++) {
            char child[4700];
            snprintf(child, sizeof child, "%s/%s", d, names[i]);
            free(names[i]);
            struct stat st;
            if (lstat(child, &st) != 0) continue;
            if (!S_ISDIR(st.st_mode)) {
                unlink(child);
            } else if (st.st_dev == root.st_dev) {
                char flat[700];
                struct stat ex;
                do snprintf(flat, sizeof flat, "%s/.toolsmith-wipe-%ld-%lu", folder, (long)getpid(), ++flat_count);
                while (lstat(flat, &ex) == 0);
                chmod(child, 0700);
                if (rename(child, flat) != 0) continue;
                if (n == cap) {
                    char **more = realloc(queue, sizeof(char *) * (size_t)(cap *= 2));
                    if (!more) continue;
                    queue = more;
                }
                queue[n++] = strdup(flat);
            }
        }
        free(names);
        if (d) rmdir(d);
        free(d);
    }
    free(queue);
}

union ts_semun {
    int val;
    struct semid_ds *buf;
    unsigned short *array;
    struct seminfo *info;
};

/* SysV shared memory, message queues and semaphore sets the job left in the sandbox's IPC namespace (with
 * its own IPC namespace off: gVisor ignores Docker's IPC sysctls of 0), as the Python worker removes what
 * /proc/sysvipc lists (gVisor has no such file); no process of the job is left to hold one. Each kind
 * counted (*_INFO), walked by index (*_STAT_ANY, else *_STAT: Linux answers the object's id) and then, while
 * any is left, by id from 0 (gVisor 20221219 answers 0 to *_STAT of shared memory and queues, and its ids
 * are small); none may be left: 1, else 0 with the reason in clean_why. A kind the kernel gives no count
 * of is none a job could have made. */
enum { IPC_SHM, IPC_MSG, IPC_SEM };

/* How many of a kind exist (-1: no count), and in `max` the highest index in use. */
static int ipc_used(int kind, int *max) {
    if (kind == IPC_SHM) {
        struct shm_info i;
        *max = shmctl(0, SHM_INFO, (struct shmid_ds *)(void *)&i);
        return *max < 0 ? -1 : i.used_ids;
    }
    if (kind == IPC_MSG) {
        struct msginfo i;
        *max = msgctl(0, MSG_INFO, (struct msqid_ds *)(void *)&i);
        return *max < 0 ? -1 : i.msgpool;
    }
    struct seminfo i;
    union ts_semun arg = {.info = &i};
    *max = semctl(0, 0, SEM_INFO, arg);
    return *max < 0 ? -1 : i.semusz;
}

/* The id at index `i` (*_STAT_ANY, else *_STAT), or -1. */
static int ipc_at(int kind, int i) {
    int id = -1;
    if (kind == IPC_SHM) {
        struct shmid_ds ds;
        if ((id = shmctl(i, SHM_STAT_ANY, &ds)) < 0) id = shmctl(i, SHM_STAT, &ds);
    } else if (kind == IPC_MSG) {
        struct msqid_ds ds;
        if ((id = msgctl(i, MSG_STAT_ANY, &ds)) < 0) id = msgctl(i, MSG_STAT, &ds);
    } else {
        struct semid_ds ds;
        union ts_semun st = {.buf = &ds};
        if ((id = semctl(i, 0, SEM_STAT_ANY, st)) < 0) id = semctl(i, 0, SEM_STAT, st);
    }
    return id;
}

static void ipc_rm(int kind, int id) {
    if (kind == IPC_SHM) shmctl(id, IPC_RMID, NULL);
    else if (kind == IPC_MSG) msgctl(id, IPC_RMID, NULL);
    else semctl(id, 0, IPC_RMID);
}

static int ipc_clean(void) {
    static const char *const names[] = {"shared memory segment", "message queue", "semaphore set"};
    for (int kind = IPC_SHM; kind <= IPC_SEM; kind++) {
        int max, used = ipc_used(kind, &max);
        if (used <= 0) continue;
        for (int i = 0; i <= max; i++) {
            int id = ipc_at(kind, i);
            if (id >= 0) ipc_rm(kind, id);
        }
        for (int id = 0; id < 4096 && (used = ipc_used(kind, &max)) > 0; id++) ipc_rm(kind, id);
        if (used > 0) {
            snprintf(clean_why, sizeof clean_why, "%d SysV %s%s the job left could not be removed", used, names[kind],
                     used == 1 ? "" : "s");
            return 0;
        }
    }
    return 1;
}

/* The wipe, then the check that nothing but what was there before the job is left: 1, else 0 with the
 * reason in clean_why. */
static int wipe(void) {
    for (int i = 0; i < nwipe; i++) {
        struct wipe_dir *w = &wipe_dirs[i];
        for (int pass = 0; pass < 2; pass++) {
            char **names;
            int n = list_dir(w->path, &names);
            if (n < 0) {
                snprintf(clean_why, sizeof clean_why, "cannot list %.511s: %s", w->path, strerror(errno));
                return 0;
            }
            int left = 0;
            for (int k = 0; k < n; k++) {
                if (!has_name(w->keep, w->nkeep, names[k])) {
                    char p[1100];
                    snprintf(p, sizeof p, "%.511s/%.255s", strcmp(w->path, "/") == 0 ? "" : w->path, names[k]);
                    if (pass == 0) remove_tree(p);
                    else if (!left++)
                        snprintf(clean_why, sizeof clean_why, "%.1100s, which the job left, could not be removed", p);
                }
                free(names[k]);
            }
            free(names);
            if (pass == 1 && left) return 0;
        }
    }
    return 1;
}

/* The job's pid (in the launcher's namespace) once cloned; a SIGTERM before that is kept in `ended`. */
static volatile sig_atomic_t job_pid, ended;
/* Tests only (TOOLSMITH_TEST_WALLS=launcherstall): a launcher that never ends or reaps its job (SIGTERM
 * ignored, no wait), as one stopped or starved would: the worker's 2 s and what it does then are tested. */
static int stall;

/* SIGTERM (the worker ending the job): SIGKILL to the job's pid 1, whose namespace dies with it; the
 * launcher then reaps it and exits. (A launcher killed outright instead left the job's pid 1 to the
 * worker, which reaps no process it did not start: a zombie per job, each holding a pid of the
 * sandbox's limit until jobs could no longer start threads.) */
static void on_term(int sig) {
    (void)sig;
    if (stall) return;
    ended = 1;
    if (job_pid > 0) kill((pid_t)job_pid, SIGKILL);
}

static void usage(void) {
    fprintf(stderr, "usage: jobns-launch [--keep DIR] [--rooted [--uid N]] [--clean FD] [--probe | --print-filter] -- PROGRAM ARGS...\n");
    exit(64);
}

int main(int argc, char **argv) {
    const char *keep = NULL;
    int probe = 0, print = 0, rooted = 0, clean = 0, i = 1;
    unsigned int job_uid = JOB_UID_BASE;
    for (; i < argc; i++) {
        if (strcmp(argv[i], "--keep") == 0 && i + 1 < argc) keep = argv[++i];
        else if (strcmp(argv[i], "--rooted") == 0) rooted = 1;
        else if (strcmp(argv[i], "--clean") == 0 && i + 1 < argc) {
            char *end;
            long fd = strtol(argv[++i], &end, 10);
            if (*end || fd < 3 || fcntl((int)fd, F_SETFD, FD_CLOEXEC) != 0) usage();
            clean = 1;
            report_fd = (int)fd;
        }
        else if (strcmp(argv[i], "--uid") == 0 && i + 1 < argc) {
            char *end;
            unsigned long u = strtoul(argv[++i], &end, 10);
            if (*end || u < JOB_UID_BASE || u >= JOB_UID_BASE + JOB_UID_COUNT) usage();
            job_uid = (unsigned int)u;
        }
        else if (strcmp(argv[i], "--probe") == 0) probe = 1;
        else if (strcmp(argv[i], "--print-filter") == 0) print = 1;
        else if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        } else usage();
    }
    /* (first: a SIGTERM from the worker that comes before the job's process exists is kept in `ended`,
     * and that process then ended as soon as it is made; before, it killed the launcher outright) */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_term;
    sigaction(SIGTERM, &sa, NULL);
    struct arch a;
    int have_arch = machine_arch(&a) == 0;
    static struct insn prog[128];
    int nprog = have_arch ? assemble(&a, prog, 128) : -1;
    if (print) {
        for (int k = 0; k < nprog; k++) printf("%u %u %u %u\n", prog[k].code, prog[k].jt, prog[k].jf, prog[k].k);
        return nprog > 0 ? 0 : 1;
    }
    if (!probe && i >= argc) usage();
    if (!have_arch || nprog < 0) {
        fprintf(stderr, "toolsmith jobns-launch: no job filter for this architecture: jobs are not started here\n");
        return 70;
    }
    struct {
        uint16_t len;
        const struct insn *filter;
    } fprog = {(uint16_t)nprog, prog};
    static struct plan_store store;
    make_plan(&store, keep, rooted);
    if (store.refused[0]) {
        /* Its job would share that mount with every later job (and the probe would not have seen it). */
        fprintf(stderr, "toolsmith jobns-launch: %s: jobs are not started here\n", store.refused);
        return 70;
    }
    stall = !probe && off("launcherstall");
    /* (a test switch: the job's process, and the probe's, a plain fork: no namespace, mount or tree; its
     * filter and, rooted, its uid kept, so the cleanup behind the namespaces is what holds) */
    int plain = off("launchplain");
    clean = clean && !probe;
    if (clean) {
        /* what the writable places hold before the job's process exists; and (the worker's uid) the job's
         * orphans given to this launcher, which reaps them, rather than to the worker, which would not */
        wipe_plan(rooted);
        if (!rooted) prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    }
    struct ts_plan plan = {store.n, store.pts, store.mounts, off("noseccomp") ? NULL : (const void *)&fprog};

    int alive[2];
    if (pipe2(alive, O_CLOEXEC) < 0) {
        fprintf(stderr, "toolsmith jobns-launch: pipe: %s\n", strerror(errno));
        return 70;
    }
    unsigned int uid = (unsigned int)getuid(), gid = (unsigned int)getgid();
    /* rooted: the job's tree, JOBS_DIR/<this launcher's pid> */
    char root[64] = "";
    if (rooted && !plain) {
        char why[4400];
        if (uid != 0 || jobs_dir(why, sizeof why) != 0) {
            fprintf(stderr, "toolsmith jobns-launch: no job tree here (%s): jobs are not started here\n",
                    uid != 0 ? "--rooted needs the worker to be root (gVisor, docker.ts JOB_UID_CAPS)" : why);
            return 70;
        }
        snprintf(root, sizeof root, "%s/%ld", JOBS_DIR, (long)getpid());
        if (mkdir(root, 0700) != 0 && errno != EEXIST) {
            fprintf(stderr, "toolsmith jobns-launch: mkdir %s: %s: jobs are not started here\n", root, strerror(errno));
            return 70;
        }
    }
    sigset_t term, old;
    sigemptyset(&term);
    sigaddset(&term, SIGTERM);
    sigprocmask(SIG_BLOCK, &term, &old);
    fflush(NULL);
    /* (a test switch: the job's process, not the probe's, without its pid namespace) */
    unsigned long flags = plain ? 0 : rooted ? ROOTED_FLAGS : JOB_FLAGS;
    if (off("nonetns")) flags &= ~(unsigned long)CLONE_NEWNET;
    if (!probe && off("jobskip-pid")) flags &= ~(unsigned long)CLONE_NEWPID;
    long pid = syscall(SYS_clone, flags | SIGCHLD, 0L, 0L, 0L, 0L);
    if (pid > 0) {
        job_pid = (sig_atomic_t)pid;
        sigprocmask(SIG_SETMASK, &old, NULL); /* (a SIGTERM that came meanwhile is handled here) */
        if (ended && !stall) kill((pid_t)pid, SIGKILL); /* (one that came before the clone) */
    }
    if (pid < 0) {
        fprintf(stderr, "toolsmith jobns-launch: the kernel refused the job's namespaces (clone with %s): %s\n",
                rooted ? (flags & CLONE_NEWNET ? "CLONE_NEWPID, NEWIPC, NEWNET" : "CLONE_NEWPID, NEWIPC")
                       : "CLONE_NEWUSER, NEWPID, NEWNS, NEWIPC",
                strerror(errno));
        if (root[0]) release_tree(root);
        return 70;
    }
    if (pid == 0) {
        if (report_fd >= 0) close(report_fd); /* (the launcher's alone: never the job's) */
        signal(SIGTERM, SIG_DFL);
        sigprocmask(SIG_SETMASK, &old, NULL);
        close(alive[1]);
        /* the launcher's end: SIGKILL to this pid 1 (so to its whole namespace); gone already: stop */
        prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
        struct pollfd pf = {alive[0], POLLIN, 0};
        if (poll(&pf, 1, 0) != 0) _exit(70);
        /* The walls this process has, in the order made: printed by the probe, and handed to the job's
         * runtime (TOOLSMITH_JOB_WALLS), whose first message to the worker reports them before it is
         * given its job (worker.mjs: a process short of a wall never gets one). The namespaces first,
         * from the clone's flags. */
        static char walls[16384];
        walls[0] = '\0';
        if (flags & CLONE_NEWUSER) add_wall(walls, sizeof walls, "user");
        if (flags & CLONE_NEWPID) add_wall(walls, sizeof walls, "pid");
        if (flags & CLONE_NEWIPC) add_wall(walls, sizeof walls, "ipc");
        if (flags & CLONE_NEWNET) add_wall(walls, sizeof walls, "net");
        char name[4200];
        if (rooted) {
            if (!plain) enter_tree(&store, root, walls, sizeof walls);
            /* (a test switch: the job's process, not the probe's, keeps root's uid: never a job then) */
            if ((probe || !off("jobskip-uid")) && take_uid(job_uid)) add_wall(walls, sizeof walls, "uid");
            /* a change of ids cleared the parent-death signal: set again, and the launcher checked again */
            prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
            if (poll(&pf, 1, 0) != 0) _exit(70);
            last_walls(plan.prog, walls, sizeof walls);
        } else if (plain) {
            last_walls(plan.prog, walls, sizeof walls);
        } else {
            int32_t out[64];
            int n = ts_enter(&plan, uid, gid, 0, out, 64);
            for (int k = 0; k < n; k++) {
                wall_name(&store, out[k], name, sizeof name);
                add_wall(walls, sizeof walls, name);
            }
        }
        if (!off("noipcfilter")) deny_ipc(); /* (where the architecture has no numbers here: none, as in Python) */
        close(alive[0]);
        if (probe) {
            for (int k = 0; k < (plain ? 0 : store.n); k++) {
                wall_name(&store, W_MOUNT0 + k, name, sizeof name);
                printf("plan %s\n", name);
            }
            if (store.pts && !plain) printf("plan pts\n");
            for (char *w = walls, *e; *w; w = e + 1) {
                e = strchr(w, ',');
                if (!e) e = w + strlen(w);
                printf("%.*s\n", (int)(e - w), w);
                if (!*e) break;
            }
            fflush(stdout);
            _exit(0);
        }
        if (setenv("TOOLSMITH_JOB_WALLS", walls, 1) != 0) _exit(70);
        execv(argv[i], argv + i);
        fprintf(stderr, "toolsmith jobns-launch: could not run %s: %s\n", argv[i], strerror(errno));
        _exit(70);
    }
    close(alive[0]);
    /* (no process of this uid opens the report pipe, or reads this one's memory, through /proc) */
    if (clean) prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    if (stall)
        for (;;) pause();
    int status = 0;
    while (waitpid((pid_t)pid, &status, 0) < 0) {
        if (errno != EINTR) {
            fprintf(stderr, "toolsmith jobns-launch: waiting for the job: %s\n", strerror(errno));
            return 70;
        }
    }
    job_pid = 0; /* (reaped: a SIGTERM from here on signals nothing) */
    /* the job's pid 1 is gone, and its pid namespace with it: its tree goes too */
    if (root[0]) release_tree(root);
    if (clean) {
        /* what the job left beside its namespaces (none of it where they held): ended and removed, and
         * the worker told on the report pipe (nothing written there, or `failed`: it stops) */
        if (!sweep(rooted, job_uid) || (!off("nowipe") && (!wipe() || !ipc_clean()))) {
            dprintf(report_fd, "failed: %s\n", clean_why);
            return CLEAN_FAILED;
        }
        dprintf(report_fd, "cleaned\n");
        close(report_fd);
    }
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        signal(sig, SIG_DFL);
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, sig);
        sigprocmask(SIG_UNBLOCK, &set, NULL);
        kill(getpid(), sig);
        return 128 + sig;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 70;
}
