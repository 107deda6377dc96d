// SPDX-License-Identifier: GPL-2.0
/*
 * Scratch memory: what is handed out survives the window being emptied,
 * the window holds, pieces move in place, and a file that cannot grow
 * is an error, never a crash.
 */
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "lib/scratch.h"
#include "lib/strmap.h"
#include "lib/strpool.h"
#include "tests/unit/tap.h"

#define MB (1024 * 1024)

/* Bytes of files mapped in (statm's third field, in pages) */
static size_t mapped(void)
{
	unsigned long size, rss, shared = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (!f)
		return 0;
	if (fscanf(f, "%lu %lu %lu", &size, &rss, &shared) != 3)
		shared = 0;
	fclose(f);
	return shared * (size_t)sysconf(_SC_PAGESIZE);
}

static void fill(unsigned char *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (unsigned char)(seed * 31 + i);
}

static int same(const unsigned char *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != (unsigned char)(seed * 31 + i))
			return 0;
	return 1;
}

static void window_holds(void)
{
	enum { PIECES = 16384, PIECE = 4096 };
	static unsigned char *piece[PIECES];
	struct strbuf err = STRBUF_INIT;
	struct scratch *s;
	size_t base, most = 0, i, bad = 0, zero = 1, aligned = 1;

	if (!ok(!scratch_open(&s, 4 * MB, &err), "open a scratch file")) {
		printf("# %s\n", err.buf);
		return;
	}
	base = mapped();
	for (i = 0; i < PIECES; i++) {
		piece[i] = scratch_alloc(s, PIECE - 16);
		if (!piece[i])
			break;
		zero &= piece[i][0] == 0 && piece[i][PIECE - 17] == 0;
		aligned &= !((uintptr_t)piece[i] & 15);
		fill(piece[i], PIECE - 16, (unsigned int)i);
		scratch_tick(s);
		if (mapped() > base && mapped() - base > most)
			most = mapped() - base;
	}
	is_int(i, PIECES, "64 MB handed out");
	ok(zero, "fresh pieces read as zeros");
	ok(aligned, "pieces are aligned to 16");
	ok(s->drops > 0, "the window was emptied (%zu times)", s->drops);
	ok(most < 8 * MB, "at most %zu KB mapped in, for a window of 4 MB", most >> 10);
	/* read it all back, emptying the window as we go */
	for (i = 0; i < PIECES; i++) {
		bad += !same(piece[i], PIECE - 16, (unsigned int)i);
		scratch_tick(s);
	}
	is_int(bad, 0, "every piece reads back as written");
	ok(scratch_used(s) >= 64 * MB - PIECES * 16, "scratch_used() counts them");
	ok(!scratch_error(s), "no error");
	scratch_close(s);
	strbuf_release(&err);
}

/*
 * A copy of 6 MB in one go (an array grown) into a window of 8 MB that
 * is two-thirds full: the window is emptied before, not after
 */
static void room_and_forget(void)
{
	struct strbuf err = STRBUF_INIT;
	struct scratch *s;
	unsigned char *a, *b;
	size_t base, drops;

	if (!ok(!scratch_open(&s, 8 * MB, &err), "room: open a scratch file")) {
		printf("# %s\n", err.buf);
		return;
	}
	base = mapped();
	a = scratch_alloc(s, 3 * MB);
	b = scratch_alloc(s, 3 * MB);
	fill(a, 3 * MB, 1);
	fill(b, 3 * MB, 2);
	drops = s->drops;
	scratch_room(s, 2 * MB);
	is_int(s->drops, drops, "room: 2 MB beside 6 MB fit in 8 MB: nothing emptied");
	scratch_room(s, 6 * MB);
	is_int(s->drops, drops + 1, "room: 6 MB more do not: emptied");
	ok(mapped() - base < MB, "room: and nothing is mapped in then (%zu KB)",
	   (mapped() - base) >> 10);
	memcpy(b, a, 3 * MB);
	ok(mapped() - base >= 5 * MB, "room: the copy mapped both in (%zu KB)",
	   (mapped() - base) >> 10);
	scratch_forget(s, a + 1, 3 * MB - 1);
	ok(mapped() - base <= 3 * MB + 2 * 4096,
	   "forget: the source's whole pages are unmapped (%zu KB left)",
	   (mapped() - base) >> 10);
	ok(same(b, 3 * MB, 1), "forget: the copy is whole");
	scratch_close(s);
	strbuf_release(&err);
}

/* Without /proc, the window is emptied every so often all the same */
static void blind(void)
{
	struct strbuf err = STRBUF_INIT;
	struct scratch *s;
	unsigned char *p;
	size_t i;

	if (scratch_open(&s, MB, &err)) {
		ok(0, "open: %s", err.buf);
		return;
	}
	close(s->statm);
	s->statm = -1;
	p = scratch_alloc(s, 4 * MB);
	fill(p, 4 * MB, 3);
	for (i = 0; i < 64 * 32; i++)
		scratch_tick(s);
	is_int(s->drops, 1, "no /proc: emptied once in 2,048 ticks");
	ok(same(p, 4 * MB, 3), "and the bytes are still there");
	scratch_room(s, 128 << 10);
	is_int(s->drops, 1, "no /proc: room for a small copy empties nothing");
	scratch_room(s, MB / 2);
	is_int(s->drops, 2, "no /proc: room for half the window empties it");
	scratch_close(s);
	strbuf_release(&err);
}

static void large_and_adopted(void)
{
	struct strbuf err = STRBUF_INIT;
	struct scratch *s;
	unsigned char *small, *big, *after, *own;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	if (scratch_open(&s, 1, &err)) {
		ok(0, "open: %s", err.buf);
		return;
	}
	small = scratch_alloc(s, 100);
	big = scratch_alloc(s, 10 * MB);
	after = scratch_alloc(s, 100);
	ok(big && small && after, "a piece larger than a segment");
	ok(after == small + 112, "the open segment stays open after a large piece");
	fill(big, 10 * MB, 7);
	scratch_check(s);
	ok(same(big, 10 * MB, 7), "the large piece survives the window");

	own = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	fill(own, 4 * page, 9);
	is_int(scratch_adopt(s, own, 4 * page), 0, "adopt 4 pages");
	ok(same(own, 4 * page, 9), "adopted: the same bytes at the same address");
	scratch_check(s);
	ok(same(own, 4 * page, 9), "and after the window is emptied");
	fill(own, page, 11);
	scratch_check(s);
	ok(same(own, page, 11), "written after adoption: kept");
	is_int(scratch_adopt(s, own + 1, page), -1, "a piece not on a page: not adopted");
	munmap(own, 4 * page);
	scratch_close(s);
	strbuf_release(&err);
}

static void pool_and_map(void)
{
	struct strbuf err = STRBUF_INIT;
	struct strpool pool = STRPOOL_INIT;
	struct strmap map = STRMAP_INIT;
	struct scratch *s;
	char *before[1000], key[32];
	size_t i, bad = 0, gens;

	for (i = 0; i < 1000; i++) {
		snprintf(key, sizeof(key), "msg%zu@example.org", i);
		before[i] = strpool_intern(&pool, key);
		strmap_put(&map, before[i], before[i]);
	}
	if (scratch_open(&s, 64 * 1024, &err)) {
		ok(0, "open: %s", err.buf);
		return;
	}
	strpool_use_scratch(&pool, s);
	strmap_use_scratch(&map, s);
	is_int(map.nr_gens, 1, "what the map held is its first generation");
	for (i = 0; i < 1000; i++) {
		snprintf(key, sizeof(key), "msg%zu@example.org", i);
		bad += strcmp(before[i], key) || strpool_intern(&pool, key) != before[i] ||
			strmap_get(&map, key) != before[i];
	}
	is_int(bad, 0, "what the pool held is where it was, interned and mapped");
	for (i = 1000; i < 50000; i++) {
		char *v;

		snprintf(key, sizeof(key), "msg%zu@example.org", i);
		v = strpool_intern(&pool, key);
		strmap_put(&map, v, v);
		scratch_tick(s);
	}
	is_int(map.gen, 64, "a window of 64 KB: generations of 64 entries");
	is_int(map.nr_gens, 1 + 49000 / 64, "in %zu generations", map.nr_gens);
	gens = map.nr_gens;
	for (i = 0, bad = 0; i < 50000; i++) {
		const char *v;

		snprintf(key, sizeof(key), "msg%zu@example.org", i);
		v = strmap_get(&map, key);
		bad += !v || strcmp(v, key);
		scratch_tick(s);
	}
	is_int(bad, 0, "50,000 keys grown in the scratch file, all found");
	ok(map.nr_gens > gens, "those found deep were copied to newer ones "
	   "(%zu generations now)", map.nr_gens);
	for (i = 0, bad = 0; i < 50000; i++) {
		const char *v;

		snprintf(key, sizeof(key), "msg%zu@example.org", i);
		v = strmap_get(&map, key);
		bad += !v || strcmp(v, key);
	}
	is_int(bad, 0, "and all are found again");
	for (i = 0, bad = 0; i < 50000; i++) {
		snprintf(key, sizeof(key), "no%zu@example.org", i);
		bad += strmap_get(&map, key) != NULL;
	}
	is_int(bad, 0, "50,000 other keys: none found");
	/* a value replaced in an old generation, and in the newest */
	snprintf(key, sizeof(key), "msg%d@example.org", 5);
	ok(strmap_put(&map, key, "five") == before[5], "put on a key of the first generation "
	   "returns its value");
	ok(!strcmp(strmap_get(&map, key), "five"), "and replaces it there");
	snprintf(key, sizeof(key), "msg%d@example.org", 49999);
	ok(strmap_put(&map, key, "last") != NULL, "put on a key of the newest entries");
	ok(!strcmp(strmap_get(&map, key), "last"), "replaces it too");
	snprintf(key, sizeof(key), "msg%d@example.org", 5);
	ok(!strcmp(strmap_get(&map, key), "five"), "the first still holds its new value");
	ok(s->drops > 0, "through %zu emptied windows", s->drops);
	strmap_release(&map);
	strpool_release(&pool);
	scratch_close(s);
	strbuf_release(&err);
}

static void cannot_grow(void)
{
	struct strbuf err = STRBUF_INIT;
	struct strpool pool = STRPOOL_INIT;
	struct rlimit old, lim;
	struct scratch *s;
	char *p;

	if (scratch_open(&s, MB, &err)) {
		ok(0, "open: %s", err.buf);
		return;
	}
	/* a file size limit plays the full disk */
	getrlimit(RLIMIT_FSIZE, &old);
	lim = old;
	lim.rlim_cur = MB / 2;
	signal(SIGXFSZ, SIG_IGN);
	setrlimit(RLIMIT_FSIZE, &lim);
	ok(!scratch_alloc(s, 100), "the file cannot grow: NULL");
	ok(scratch_error(s) && strstr(scratch_error(s), "cannot grow to 1 MB"),
	   "and why: %s", scratch_error(s) ? scratch_error(s) : "(none)");
	strpool_use_scratch(&pool, s);
	p = strpool_strdup(&pool, "still works");
	is_str(p, "still works", "the pool falls back to memory");
	setrlimit(RLIMIT_FSIZE, &old);
	signal(SIGXFSZ, SIG_DFL);
	strpool_release(&pool);
	scratch_close(s);

	strbuf_reset(&err);
	setenv("TMPDIR", "/nonexistent/dir", 1);
	is_int(scratch_open(&s, MB, &err), -1, "no such $TMPDIR: an error");
	ok(strstr(err.buf, "cannot create a scratch file in /nonexistent/dir") != NULL,
	   "naming the directory: %s", err.buf);
	unsetenv("TMPDIR");
	strbuf_release(&err);
}

int main(void)
{
	window_holds();
	room_and_forget();
	blind();
	large_and_adopted();
	pool_and_map();
	cannot_grow();
	return done_testing();
}
