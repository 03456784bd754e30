/*
 * The fork server's steady state in C (docs/scaling.md, "The fork server's loop in C").
 *
 * After every clone each page of the fork server that it writes is copied again while the job's
 * process shares it: the Python loop wrote ~90 of them per job (refcounts, frames, the objects of
 * select/recv/pipe/sendmsg), at 12-15 us each on a machine with slow page faults. This loop does the
 * same requests touching only its own stack and this state: it forks a job's process ("f": three
 * pipes, the clone into namespaces of its own, the pipes handed to the worker with "c"), answers pings
 * ("p" -> "P") and reports each child's exit ("x"), and hands every other request back to Python
 * (forkserver.py), which also keeps the whole Python loop for every case this one does not take
 * (a clone the kernel refuses, more children than it holds, a worker without this library).
 *
 * gVisor (no pidfd_open; rooted jobs): children are watched through the SIGCHLD wakeup pipe the Python
 * side set up (forkserver._ChildWatch: `watch`, each child looked for with waitpid(WNOHANG)), and each
 * job's tree folder (TS_JOBS_DIR/<n>, jobns.job_root) is made before its clone and unmounted and removed
 * once it is gone (jobns.release); the tree itself the job's process makes (jobns.enter_rooted). There a
 * page the fork server writes while a child shares it costs the copy of its whole 2 MiB-aligned range
 * (docs/scaling.md, "gVisor's fork: what a job's process costs there"), so the Python loop's writes
 * after each clone cost milliseconds.
 *
 * Loaded with ctypes.PyDLL: the GIL stays held throughout, so the clone copies a consistent interpreter
 * (PyOS_BeforeFork / PyOS_AfterFork_* around it, as os.fork does). Only system calls that every glibc
 * since 2.2.5 has: no header or library of Python's is needed, and the file builds with any C compiler.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

#define TS_MAX_CHILDREN 16
#define TS_JOBS_DIR "/mnt" /* jobns.JOBS_DIR (forkloop.py checks they agree) */

typedef void (*ts_hook)(void);

/* Shared with forkserver.py (a ctypes.Structure of the same fields, in this order). */
struct ts_state {
    /* set by Python */
    int32_t sock;          /* the worker's socket (SOCK_SEQPACKET) */
    int32_t uid_count;     /* job uids: the n-th process under uid_base + n % uid_count; 0: none */
    int32_t uid_base;
    int32_t user;          /* the fork server's own uid and gid, back after each clone */
    int64_t flags;         /* clone flags (the job's namespaces, SIGCHLD) */
    ts_hook before, after_child, after_parent;
    /* kept by both sides */
    uint32_t made;         /* job processes made so far */
    int32_t nchildren;
    int32_t pidfd[TS_MAX_CHILDREN];
    int32_t pid[TS_MAX_CHILDREN];
    /* out */
    int32_t request;       /* TS_REQUEST: the request's byte */
    int32_t err;           /* TS_CLONE_FAILED: errno (of the pipe or the clone), for a test to read */
    int32_t job_r, msg_w, out_w, own; /* TS_CHILD: the new process's ends of its pipes; its uid or -1 */
    /* gVisor (set by Python) */
    int32_t watch;         /* the SIGCHLD wakeup pipe's read end (children have no pidfd: -1 in pidfd[]); else -1 */
    int32_t rooted;        /* 1: each child gets a tree folder TS_JOBS_DIR/<made>; no uid switch around the clone */
    int32_t root[TS_MAX_CHILDREN]; /* (rooted) the n of each child's tree folder, -1 for none; kept by both sides */
    int32_t released;      /* TS_RELEASE: the n of a tree folder that is still a mount point (Python's release) */
    int32_t reserved;
};

/* (forkloop.py checks the same size: a layout that differs is never used) */
_Static_assert(sizeof(void (*)(void)) != 8 || sizeof(struct ts_state) == 288, "struct ts_state layout");

enum { TS_CHILD = 0, TS_REQUEST = 1, TS_CLONE_FAILED = 2, TS_GONE = 3, TS_FULL = 4, TS_RELEASE = 5 };

static void put32(char *p, uint32_t v) {
    p[0] = (char)(v & 0xff);
    p[1] = (char)((v >> 8) & 0xff);
    p[2] = (char)((v >> 16) & 0xff);
    p[3] = (char)((v >> 24) & 0xff);
}

static int send_all(int sock, const char *buf, size_t n) {
    for (;;) {
        ssize_t r = send(sock, buf, n, MSG_NOSIGNAL);
        if (r == (ssize_t)n) return 0;
        if (r < 0 && errno == EINTR) continue;
        return -1;
    }
}

/* "c" + pid, with the three fds of the worker's side. */
static int send_child(int sock, int pid, int fds[3]) {
    char msg[5];
    msg[0] = 'c';
    put32(msg + 1, (uint32_t)pid);
    struct iovec iov = {msg, sizeof msg};
    union {
        char buf[CMSG_SPACE(3 * sizeof(int))];
        struct cmsghdr align;
    } u;
    memset(&u, 0, sizeof u);
    struct msghdr mh;
    memset(&mh, 0, sizeof mh);
    mh.msg_iov = &iov;
    mh.msg_iovlen = 1;
    mh.msg_control = u.buf;
    mh.msg_controllen = sizeof u.buf;
    struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(3 * sizeof(int));
    memcpy(CMSG_DATA(c), fds, 3 * sizeof(int));
    for (;;) {
        ssize_t r = sendmsg(sock, &mh, MSG_NOSIGNAL);
        if (r == (ssize_t)sizeof msg) return 0;
        if (r < 0 && errno == EINTR) continue;
        return -1;
    }
}

static void root_path(char *out, size_t n, uint32_t made) {
    snprintf(out, n, TS_JOBS_DIR "/%u", made);
}

/* A child is gone (its pidfd readable; or, watched through SIGCHLD, `status` from waitpid(WNOHANG)):
 * reaped, reported as "x" + pid + wait status, then (rooted) its tree unmounted and its folder removed,
 * as jobns.release does: one lazy unmount of the folder; where it is still a mount point after it, 1
 * and `released` (Python unmounts what is left, deepest first). 0 when done, -1 when the worker is gone. */
static int exited(struct ts_state *s, int i, int reaped, int status) {
    int pid = s->pid[i], root = s->root[i];
    if (s->pidfd[i] >= 0) close(s->pidfd[i]);
    s->nchildren--;
    s->pidfd[i] = s->pidfd[s->nchildren];
    s->pid[i] = s->pid[s->nchildren];
    s->root[i] = s->root[s->nchildren];
    while (!reaped && waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            status = 0;
            break;
        }
    }
    char msg[9];
    msg[0] = 'x';
    put32(msg + 1, (uint32_t)pid);
    put32(msg + 5, (uint32_t)status);
    if (send_all(s->sock, msg, sizeof msg) < 0) return -1;
    if (root < 0) return 0;
    char path[32];
    root_path(path, sizeof path, (uint32_t)root);
    umount2(path, MNT_DETACH);
    if (rmdir(path) == 0) return 0;
    s->released = root;
    return 1;
}

/* Watched through SIGCHLD: the first child found gone (reported as above): 0 none, 1 one (Python's
 * release wanted: 2), -1 the worker is gone. */
static int reap_watched(struct ts_state *s) {
    for (int i = 0; i < s->nchildren; i++) {
        int status = 0;
        int r = waitpid(s->pid[i], &status, WNOHANG);
        if (r == 0 || (r < 0 && errno == EINTR)) continue;
        if (r < 0) status = 0; /* (ECHILD: not ours to wait for any more; reported as Python does) */
        int e = exited(s, i, 1, status);
        return e < 0 ? -1 : 1 + e;
    }
    return 0;
}

static void close_all(const int *fds, int n) {
    for (int i = 0; i < n; i++) close(fds[i]);
}

/* "f": the next job's process. TS_CHILD in it (the worker's socket still open: Python closes its socket
 * object); in the fork server 1, -1 when the worker is gone, -2 when a pipe or the clone failed. */
static int fork_job(struct ts_state *s) {
    int job[2], msg[2], out[2];
    s->err = 0;
    if (pipe2(job, O_CLOEXEC) < 0) {
        s->err = errno;
        return -2;
    }
    if (pipe2(msg, O_CLOEXEC) < 0) {
        s->err = errno;
        close_all(job, 2);
        return -2;
    }
    if (pipe2(out, O_CLOEXEC) < 0) {
        s->err = errno;
        close_all(job, 2);
        close_all(msg, 2);
        return -2;
    }
    int own = s->uid_count > 0 ? s->uid_base + (int)(s->made % (uint32_t)s->uid_count) : -1;
    char root[32];
    if (s->rooted) {
        /* (a folder left there, or any other failure: Python's path, whose job_root releases it first) */
        root_path(root, sizeof root, s->made);
        if (mkdir(root, 0700) < 0) {
            s->err = errno;
            close_all(job, 2);
            close_all(msg, 2);
            close_all(out, 2);
            return -2;
        }
    }
    /* (rooted: the process takes its uid in jobns.enter_rooted, after its mounts; no user namespace) */
    int switch_uid = own >= 0 && !s->rooted;
    if (switch_uid && (setresgid(-1, own, -1) < 0 || setresuid(-1, own, -1) < 0)) {
        s->err = errno;
        setresgid(-1, s->user, -1);
        close_all(job, 2);
        close_all(msg, 2);
        close_all(out, 2);
        return -2;
    }
    s->before();
    long pid = syscall(SYS_clone, (unsigned long)s->flags, 0L, 0L, 0L, 0L);
    if (pid == 0) {
        s->after_child();
        for (int i = 0; i < s->nchildren; i++)
            if (s->pidfd[i] >= 0) close(s->pidfd[i]);
        s->nchildren = 0;
        close(job[1]);
        close(msg[0]);
        close(out[0]);
        s->job_r = job[0];
        s->msg_w = msg[1];
        s->out_w = out[1];
        s->own = own;
        return TS_CHILD;
    }
    int err = errno;
    s->after_parent();
    if (switch_uid && (setresuid(-1, s->user, -1) < 0 || setresgid(-1, s->user, -1) < 0))
        _exit(70); /* (never go on under a job's uid; Python's os.setresuid would have raised) */
    if (pid < 0) {
        close_all(job, 2);
        close_all(msg, 2);
        close_all(out, 2);
        if (s->rooted) rmdir(root);
        s->err = err;
        return -2;
    }
    s->made++;
    close(job[0]);
    close(msg[1]);
    close(out[1]);
    int theirs[3] = {job[1], msg[0], out[0]};
    int sent = send_child(s->sock, (int)pid, theirs);
    close_all(theirs, 3);
    /* (a SIGCHLD from now on finds it; one before is still a byte in the wakeup pipe) */
    s->root[s->nchildren] = s->rooted ? (int32_t)(s->made - 1) : -1;
    if (s->watch >= 0) {
        s->pidfd[s->nchildren] = -1;
        s->pid[s->nchildren] = (int)pid;
        s->nchildren++;
    }
    if (sent < 0) return -1;
    if (s->watch >= 0) return 1;
    int fd = (int)syscall(SYS_pidfd_open, (int)pid, 0);
    if (fd < 0) {
        /* (not seen where pidfd_open worked for the first child: waited for here, as in Python) */
        int status = 0;
        while (waitpid((int)pid, &status, 0) < 0 && errno == EINTR) {
        }
        char x[9];
        x[0] = 'x';
        put32(x + 1, (uint32_t)pid);
        put32(x + 5, (uint32_t)status);
        return send_all(s->sock, x, sizeof x) < 0 ? -1 : 1;
    }
    s->pidfd[s->nchildren] = fd;
    s->pid[s->nchildren] = (int)pid;
    s->nchildren++;
    return 1;
}

int ts_serve(struct ts_state *s) {
    struct pollfd fds[TS_MAX_CHILDREN + 1];
    for (;;) {
        if (s->watch >= 0) {
            /* (every child is looked for before each wait: a SIGCHLD may have come while Python ran) */
            int r;
            while ((r = reap_watched(s)) == 1) {
            }
            if (r < 0) return TS_GONE;
            if (r == 2) return TS_RELEASE;
        }
        int n = 0;
        fds[n].fd = s->sock;
        fds[n].events = POLLIN;
        fds[n++].revents = 0;
        if (s->watch >= 0) {
            fds[n].fd = s->watch;
            fds[n].events = POLLIN;
            fds[n++].revents = 0;
        } else {
            for (int i = 0; i < s->nchildren; i++) {
                fds[n].fd = s->pidfd[i];
                fds[n].events = POLLIN;
                fds[n++].revents = 0;
            }
        }
        if (poll(fds, (nfds_t)n, -1) < 0) {
            if (errno == EINTR) continue;
            return TS_GONE;
        }
        if (s->watch >= 0) {
            if (fds[1].revents) {
                char drain[64];
                while (read(s->watch, drain, sizeof drain) > 0) {
                }
                continue; /* (the children are looked for at the top; the socket is polled again) */
            }
        } else {
            /* children first (by pid: the arrays move as they are reaped) */
            for (int k = 1; k < n; k++) {
                if (!fds[k].revents) continue;
                for (int i = 0; i < s->nchildren; i++) {
                    if (s->pidfd[i] == fds[k].fd) {
                        int e = exited(s, i, 0, 0);
                        if (e < 0) return TS_GONE;
                        break;
                    }
                }
            }
        }
        if (!fds[0].revents) continue;
        char req[16];
        ssize_t r = recv(s->sock, req, sizeof req, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return TS_GONE;
        if (r == 1 && req[0] == 'p') {
            if (send_all(s->sock, "P", 1) < 0) return TS_GONE;
            continue;
        }
        if (r != 1) continue; /* (as in Python: a request is one byte; anything else is ignored) */
        if (req[0] != 'f') {
            s->request = (unsigned char)req[0];
            return TS_REQUEST;
        }
        if (s->nchildren >= TS_MAX_CHILDREN) return TS_FULL;
        int made = fork_job(s);
        if (made == TS_CHILD) return TS_CHILD;
        if (made == -1) return TS_GONE;
        if (made == -2) return TS_CLONE_FAILED;
    }
}

/*
 * A job's process before its job (jobns.enter, docs/scaling.md "A job's walls in C"): the same system
 * calls in the same order as jobns.py's Python path, which stays for a worker without this library and
 * for the tests that compare both (`nocenter`). In C the new process runs no interpreter code to make
 * its walls, so it copies none of the fork server's pages for them: that code cost more than the
 * namespaces themselves. Called from the job's process (ctypes, the GIL held); it calls no Python.
 *
 * The plan is made once in the fork server (jobns._plan) and every process inherits it. What is in
 * place is written to `out` as codes, in the order the walls were made (jobns._C_WALLS names them);
 * the count is returned.
 */
struct ts_mount {
    const char *source, *target, *fstype; /* fstype may be NULL */
    uint64_t flags;
    const char *data; /* may be NULL */
    const char *keep; /* a folder inside target bound back over the fresh mount, or NULL */
};

struct ts_plan {
    int32_t nmounts;
    int32_t pts; /* a devpts instance of its own at /dev/pts */
    const struct ts_mount *mounts;
    const void *prog; /* struct sock_fprog *, or NULL: no filter */
};

_Static_assert(sizeof(void *) != 8 || sizeof(struct ts_mount) == 48, "struct ts_mount layout");
_Static_assert(sizeof(void *) != 8 || sizeof(struct ts_plan) == 24, "struct ts_plan layout");

enum {
    W_IDS = 1, W_UID, W_MNT, W_PTS, W_PTS_REFUSED, W_PROC, W_NOUSERNS, W_PROC_HIDDEN, W_NOCAPS, W_SECCOMP,
    W_MOUNT0 = 32 /* + the mount's index in the plan */
};

#define W_FLAGS (MS_NOSUID | MS_NODEV | MS_NOEXEC)

static int write_file(const char *path, const char *text) {
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    size_t n = strlen(text);
    ssize_t r = write(fd, text, n);
    close(fd);
    return r == (ssize_t)n;
}

static int put(int32_t *out, int *n, int max, int code) {
    if (*n < max) out[(*n)++] = code;
    return 1;
}

/* mkdir -p of an absolute path (os.makedirs(path, 0o755, exist_ok=True)) */
static int make_dirs(const char *path) {
    char buf[4096];
    size_t len = strlen(path);
    if (len == 0 || len >= sizeof buf) return -1;
    memcpy(buf, path, len + 1);
    for (size_t i = 1; i <= len; i++) {
        if (buf[i] != '/' && buf[i] != '\0') continue;
        char c = buf[i];
        buf[i] = '\0';
        if (mkdir(buf, 0755) < 0 && errno != EEXIST) return -1;
        buf[i] = c;
    }
    int fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC); /* (not stat: its symbol is glibc 2.33's) */
    if (fd < 0) return -1;
    close(fd);
    return 0;
}

/* A fresh mount at target with the folder `keep` (inside it) bound back: opened before the mount covers
 * it, bound from that descriptor (jobns._mount_keeping). */
static int mount_keeping(const struct ts_mount *m) {
    int fd = open(m->keep, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return mount(m->source, m->target, m->fstype, m->flags, m->data) == 0;
    int ok = mount(m->source, m->target, m->fstype, m->flags, m->data) == 0;
    if (ok && make_dirs(m->keep) == 0) {
        char path[64];
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        mount(path, m->keep, NULL, MS_BIND | MS_REC, NULL);
    }
    close(fd);
    return ok;
}

int ts_enter(const struct ts_plan *p, unsigned int uid, unsigned int gid, int own, int32_t *out, int max) {
    int n = 0;
    char text[64];
    /* dumpable for its OOM score and the id maps (its /proc files are root's otherwise) */
    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
    write_file("/proc/self/oom_score_adj", "1000");
    write_file("/proc/self/setgroups", "deny");
    snprintf(text, sizeof text, "%u %u 1", uid, uid);
    int ids = write_file("/proc/self/uid_map", text);
    if (ids) {
        snprintf(text, sizeof text, "%u %u 1", gid, gid);
        ids = write_file("/proc/self/gid_map", text);
    }
    if (ids) {
        put(out, &n, max, W_IDS);
        if (own) {
            uid_t r, e, s;
            gid_t gr, ge, gs;
            if (setresgid((gid_t)gid, (gid_t)gid, (gid_t)gid) == 0 && setresuid((uid_t)uid, (uid_t)uid, (uid_t)uid) == 0 &&
                getresuid(&r, &e, &s) == 0 &&
                getresgid(&gr, &ge, &gs) == 0 && r == (uid_t)uid && e == (uid_t)uid && s == (uid_t)uid &&
                gr == (gid_t)gid && ge == (gid_t)gid && gs == (gid_t)gid)
                put(out, &n, max, W_UID);
        }
    }
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    if (mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0) {
        put(out, &n, max, W_MNT);
        char cwd[4096];
        if (!getcwd(cwd, sizeof cwd)) strcpy(cwd, "/");
        for (int i = 0; i < p->nmounts; i++) {
            const struct ts_mount *m = &p->mounts[i];
            int ok = m->keep ? mount_keeping(m) : mount(m->source, m->target, m->fstype, m->flags, m->data) == 0;
            if (ok) put(out, &n, max, W_MOUNT0 + i);
        }
        if (p->pts) {
            if (mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620") == 0) {
                put(out, &n, max, W_PTS);
            } else if (mount("tmpfs", "/dev/pts", "tmpfs", MS_RDONLY | W_FLAGS, "size=4096,mode=555") == 0) {
                put(out, &n, max, W_PTS);
                put(out, &n, max, W_PTS_REFUSED);
            }
        }
        if (mount("proc", "/proc", "proc", W_FLAGS, NULL) == 0) {
            put(out, &n, max, W_PROC);
            if (write_file("/proc/sys/user/max_user_namespaces", "0")) put(out, &n, max, W_NOUSERNS);
        } else {
            if (write_file("/proc/sys/user/max_user_namespaces", "0")) put(out, &n, max, W_NOUSERNS);
            if (mount("tmpfs", "/proc", "tmpfs", MS_RDONLY | W_FLAGS, "size=4096,mode=555") == 0)
                put(out, &n, max, W_PROC_HIDDEN);
        }
        chdir(cwd); /* the cwd's mount was replaced: enter the new one */
    }
    /* the last two walls, in this order: every capability it holds in its own user namespace goes (so
     * it cannot unmount its /proc to find the sandbox's beneath), then the job's filter */
    struct {
        uint32_t version;
        int pid;
    } head = {0x20080522, 0}; /* _LINUX_CAPABILITY_VERSION_3 */
    struct {
        uint32_t effective, permitted, inheritable;
    } data[2];
    memset(data, 0, sizeof data);
    if (syscall(SYS_capset, &head, data) == 0) put(out, &n, max, W_NOCAPS);
    if (p->prog && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
        prctl(PR_SET_SECCOMP, 2 /* SECCOMP_MODE_FILTER */, p->prog, 0, 0) == 0)
        put(out, &n, max, W_SECCOMP);
    return n;
}

