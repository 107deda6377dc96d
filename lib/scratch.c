// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/scratch.h"

/* The file is mapped and reserved this much at a time, at most */
#define SEGMENT (16u << 20)
#define FIRST_SEGMENT (1u << 20)
#define ALIGN 16
/* Pieces adopted at most: each is a mapping, and there is a limit */
#define MAX_ADOPTED 8192
/* Without /proc: empty the window every this many checks */
#define BLIND_CHECKS 64
/*
 * The most a unit of work is taken to map in (sixteen pages: what one
 * read fault maps around it).  The next check comes after as many
 * units as the window's free room holds at that rate: right after the
 * window was emptied every few hundred, near its end every few.
 * Reading /proc/self/statm every 32 units had cost 3 us each, 0.35 s
 * for 500,000 messages.
 */
#define TICK_BYTES (64u << 10)
#define MIN_TICKS 8
#define MAX_TICKS 1024
#define BLIND_TICKS 32

static const char *scratch_dir(void)
{
	const char *dir = getenv("TMPDIR");

	return dir && *dir ? dir : "/var/tmp";
}

static int open_file(const char *dir, struct strbuf *err)
{
	struct strbuf path = STRBUF_INIT;
	int fd;

#ifdef O_TMPFILE
	fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
#endif
	/* a file system without O_TMPFILE: a name, gone at once */
	strbuf_addf(&path, "%s/lorebot-scratch-XXXXXX", dir);
	fd = mkostemp(path.buf, O_CLOEXEC);
	if (fd >= 0)
		unlink(path.buf);
	else
		strbuf_addf(err, "cannot create a scratch file in %s: %s",
			    dir, strerror(errno));
	strbuf_release(&path);
	return fd;
}

/* Pages of this process mapped in from files (shared: statm's third) */
static int mapped_pages(struct scratch *s, size_t *pages)
{
	char buf[128];
	unsigned long size, rss, shared;
	ssize_t n;

	if (s->statm < 0)
		return -1;
	n = pread(s->statm, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (sscanf(buf, "%lu %lu %lu", &size, &rss, &shared) != 3)
		return -1;
	*pages = shared;
	return 0;
}

int scratch_open(struct scratch **sp, size_t window, struct strbuf *err)
{
	struct scratch *s;
	const char *dir = scratch_dir();
	int fd = open_file(dir, err);

	if (fd < 0)
		return -1;
	s = xcalloc(1, sizeof(*s));
	s->fd = fd;
	s->window = window;
	s->page = (size_t)sysconf(_SC_PAGESIZE);
	s->next_seg = FIRST_SEGMENT;
	s->next_check = MIN_TICKS;
	strbuf_init(&s->err, 0);
	s->statm = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
	if (mapped_pages(s, &s->baseline)) {
		if (s->statm >= 0)
			close(s->statm);
		s->statm = -1;
	}
	*sp = s;
	return 0;
}

void scratch_close(struct scratch *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nr_segs; i++)
		if (!s->segs[i].adopted)
			munmap(s->segs[i].base, s->segs[i].size);
	free(s->segs);
	free(s->runs);
	if (s->statm >= 0)
		close(s->statm);
	close(s->fd);
	strbuf_release(&s->err);
	free(s);
}

/* Reserve len more bytes of the file (at s->filed); 0 or -1 (s->err) */
static int reserve(struct scratch *s, size_t len)
{
	int r;

	if (s->err.len)
		return -1;
	/* the blocks are taken now: a full disk fails here, not as SIGBUS */
	r = posix_fallocate(s->fd, (off_t)s->filed, (off_t)len);
	if (r) {
		strbuf_addf(&s->err, "scratch file in %s: cannot grow to %zu MB: %s",
			    scratch_dir(), (s->filed + len) >> 20, strerror(r));
		return -1;
	}
	return 0;
}

static void add_seg(struct scratch *s, void *base, size_t len, bool adopted)
{
	struct scratch_seg *seg;

	s->filed += len;
	ALLOC_GROW(s->segs, s->nr_segs + 1, s->alloc_segs);
	seg = &s->segs[s->nr_segs++];
	seg->base = base;
	seg->size = len;
	seg->adopted = adopted;
}

/* A new segment of at least size bytes; 0 or -1 (s->err) */
static int grow(struct scratch *s, size_t size)
{
	size_t len = (size + s->page - 1) & ~(s->page - 1);
	void *base;

	/* from 1 MB up: a small assembly does not reserve 16 MB */
	if (len < s->next_seg)
		len = s->next_seg;
	if (s->next_seg < SEGMENT)
		s->next_seg *= 2;

	if (reserve(s, len))
		return -1;
	base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd,
		    (off_t)s->filed);
	if (base == MAP_FAILED) {
		strbuf_addf(&s->err, "scratch file in %s: cannot map %zu MB more: %s",
			    scratch_dir(), len >> 20, strerror(errno));
		return -1;
	}
	add_seg(s, base, len, false);
	s->cur = base;
	s->left = len;
	return 0;
}

int scratch_adopt(struct scratch *s, void *addr, size_t len)
{
	const char *p = addr;
	size_t done = 0;
	ssize_t n;

	if ((uintptr_t)addr % s->page || len % s->page ||
	    s->nr_segs >= MAX_ADOPTED || reserve(s, len))
		return -1;
	while (done < len) {
		n = pwrite(s->fd, p + done, len - done, (off_t)(s->filed + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			strbuf_addf(&s->err, "scratch file in %s: cannot write: %s",
				    scratch_dir(), n ? strerror(errno) : "short write");
			return -1;
		}
		done += n;
	}
	/*
	 * The bytes are in the file now: map them over the originals.  If
	 * that fails, what was there may be gone, and the file is all
	 * there is: no going on without it.
	 */
	if (mmap(addr, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
		 s->fd, (off_t)s->filed) == MAP_FAILED) {
		fprintf(stderr, "lorebot: scratch file in %s: cannot map in place: %s\n",
			scratch_dir(), strerror(errno));
		abort();
	}
	add_seg(s, addr, len, true);
	return 0;
}

void *scratch_alloc(struct scratch *s, size_t size)
{
	char *r;

	size = (size + ALIGN - 1) & ~(size_t)(ALIGN - 1);
	if (size > SEGMENT / 4) {
		/* a segment of its own; the open one stays open */
		char *cur = s->cur;
		size_t left = s->left;

		if (grow(s, size))
			return NULL;
		r = s->segs[s->nr_segs - 1].base;
		s->cur = cur;
		s->left = left;
	} else {
		if (size > s->left && grow(s, size))
			return NULL;
		r = s->cur;
		s->cur += size;
		s->left -= size;
	}
	s->total += size;
	return r;		/* fresh file space reads as zeros */
}

static int by_base(const void *x, const void *y)
{
	const struct scratch_seg *a = x, *b = y;

	return a->base < b->base ? -1 : a->base > b->base;
}

/*
 * The segments merged where one ends at the next one's start: the
 * pieces adopted from the arena lie mostly side by side (401 pieces in
 * 13 runs for 500,000 messages), and a drop is then a call per run,
 * not per piece
 */
static void make_runs(struct scratch *s)
{
	size_t i, n = 0;

	s->runs = xrealloc(s->runs, s->nr_segs * sizeof(*s->runs));
	memcpy(s->runs, s->segs, s->nr_segs * sizeof(*s->runs));
	qsort(s->runs, s->nr_segs, sizeof(*s->runs), by_base);
	for (i = 0; i < s->nr_segs; i++) {
		if (n && s->runs[n - 1].base + s->runs[n - 1].size == s->runs[i].base)
			s->runs[n - 1].size += s->runs[i].size;
		else
			s->runs[n++] = s->runs[i];
	}
	s->nr_runs = n;
	s->runs_of = s->nr_segs;
}

static void drop(struct scratch *s)
{
	size_t i;

	if (s->runs_of != s->nr_segs)
		make_runs(s);
	for (i = 0; i < s->nr_runs; i++)
		madvise(s->runs[i].base, s->runs[i].size, MADV_DONTNEED);
	s->drops++;
}

/* Look at what is mapped in; empty the window if need more would not fit */
static void check(struct scratch *s, size_t need)
{
	size_t pages, mapped, room;

	s->checks++;
	s->ticks = 0;
	if (mapped_pages(s, &pages)) {
		s->next_check = BLIND_TICKS;
		/* blind, a large copy is taken to need the whole window */
		if (need >= s->window / 4 || !(s->checks % BLIND_CHECKS))
			drop(s);
		return;
	}
	mapped = pages > s->baseline ? (pages - s->baseline) * s->page : 0;
	if (mapped + need > s->window) {
		drop(s);
		mapped = 0;
	}
	mapped += need;
	room = mapped < s->window ? (s->window - mapped) / TICK_BYTES : 0;
	s->next_check = room < MIN_TICKS ? MIN_TICKS :
		room > MAX_TICKS ? MAX_TICKS : (unsigned int)room;
}

void scratch_check(struct scratch *s)
{
	check(s, 0);
}

void scratch_room(struct scratch *s, size_t len)
{
	/* a small copy is a tick's worth: no look at /proc for it */
	if (len <= TICK_BYTES)
		scratch_tick(s);
	else if (s)
		check(s, len);
}

void scratch_forget(struct scratch *s, void *addr, size_t len)
{
	uintptr_t start, end;

	if (!s)
		return;
	/* the whole pages inside: the rest may be someone else's */
	start = ((uintptr_t)addr + s->page - 1) & ~(uintptr_t)(s->page - 1);
	end = ((uintptr_t)addr + len) & ~(uintptr_t)(s->page - 1);
	if (end > start)
		madvise((void *)start, end - start, MADV_DONTNEED);
}
