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
 * (no pidfd, gVisor's rooted jobs, a clone the kernel refuses).
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
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

#define TS_MAX_CHILDREN 16

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
};

/* (forkloop.py checks the same size: a layout that differs is never used) */
_Static_assert(sizeof(void (*)(void)) != 8 || sizeof(struct ts_state) == 208, "struct ts_state layout");

enum { TS_CHILD = 0, TS_REQUEST = 1, TS_CLONE_FAILED = 2, TS_GONE = 3, TS_FULL = 4 };

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

/* A child is gone (its pidfd readable): reaped, reported as "x" + pid + wait status. */
static int exited(struct ts_state *s, int i) {
    int pid = s->pid[i], status = 0;
    close(s->pidfd[i]);
    s->nchildren--;
    s->pidfd[i] = s->pidfd[s->nchildren];
    s->pid[i] = s->pid[s->nchildren];
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            status = 0;
            break;
        }
    }
    char msg[9];
    msg[0] = 'x';
    put32(msg + 1, (uint32_t)pid);
    put32(msg + 5, (uint32_t)status);
    return send_all(s->sock, msg, sizeof msg);
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
    if (own >= 0 && (setresgid(-1, own, -1) < 0 || setresuid(-1, own, -1) < 0)) {
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
        for (int i = 0; i < s->nchildren; i++) close(s->pidfd[i]);
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
    if (own >= 0 && (setresuid(-1, s->user, -1) < 0 || setresgid(-1, s->user, -1) < 0))
        _exit(70); /* (never go on under a job's uid; Python's os.setresuid would have raised) */
    if (pid < 0) {
        close_all(job, 2);
        close_all(msg, 2);
        close_all(out, 2);
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
    if (sent < 0) return -1;
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
        int n = 0;
        fds[n].fd = s->sock;
        fds[n].events = POLLIN;
        fds[n++].revents = 0;
        for (int i = 0; i < s->nchildren; i++) {
            fds[n].fd = s->pidfd[i];
            fds[n].events = POLLIN;
            fds[n++].revents = 0;
        }
        if (poll(fds, (nfds_t)n, -1) < 0) {
            if (errno == EINTR) continue;
            return TS_GONE;
        }
        /* children first (by pid: the arrays move as they are reaped) */
        for (int k = 1; k < n; k++) {
            if (!fds[k].revents) continue;
            for (int i = 0; i < s->nchildren; i++) {
                if (s->pidfd[i] == fds[k].fd) {
                    if (exited(s, i) < 0) return TS_GONE;
                    break;
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
