// SPDX-License-Identifier: GPL-2.0
/* What the lore client parses: Atom feeds, times, URLs, --since */
#include "bot/fetch/fetch.h"
#include "bot/lore/lore.h"
#include "tests/unit/tap.h"

/* trimmed from public-inbox 1.9's output: attributes split by newlines */
static const char feed[] =
	"<?xml version=\"1.0\" encoding=\"us-ascii\"?>\n<feed\nxmlns=\"http://www.w3.org/2005/Atom\"\n"
	"xmlns:thr=\"http://purl.org/syndication/thread/1.0\"><title>s:x - search results</title>"
	"<link\nrel=\"alternate\"\ntype=\"text/html\"\nhref=\"http://127.0.0.1:1/linux-mm/?q=x\"/>"
	"<id>urn:uuid:ebfe3af9-0000-0000-0000-000000000000</id>"
	"<updated>2024-05-13T14:00:02Z</updated><entry><author><name>Bob Hacker</name>"
	"<email>bob@example.net</email></author><title>[PATCH RESEND v2 2/2] mm/vmscan: add "
	"shrink_list_all()</title><updated>2024-05-09T10:11:12Z</updated><link\n"
	"href=\"http://127.0.0.1:1/linux-mm/a%2Fb%40c&amp;d@example.net/\"/><id>urn:uuid:f6a4</id>"
	"<content\ntype=\"xhtml\"><div\nxmlns=\"http://www.w3.org/1999/xhtml\"><pre>x</pre></div>"
	"</content></entry><entry><updated>2020-01-01T00:00:00Z</updated></entry></feed>";

int main(void)
{
	struct lore_entry e;
	struct strbuf sb = STRBUF_INIT;
	int64_t t = 0, feed_upd = 0;

	is_int(lore_parse_time("2024-05-13T14:00:02Z", &t), 0, "Atom time parses");
	is_int(t, 1715608802, "to unix seconds");
	ok(lore_parse_time("2024-05-13 14:00:02", &t) < 0, "other forms are refused");

	is_int(lore_atom_first(feed, &e, &feed_upd), 1, "the first entry");
	is_str(e.msgid, "a/b@c&d@example.net", "Message-ID from the link, unescaped");
	is_int(e.ts, 1715249472, "its <updated>");
	is_int(feed_upd, 1715608802, "the feed's <updated>");
	lore_entry_release(&e);
	is_int(lore_atom_first("<feed><title>t</title><updated>2024-05-13T14:00:02Z"
			       "</updated></feed>", &e, NULL), 0, "a feed without entries");
	is_int(lore_atom_first("</feed>", &e, NULL), 0,
	       "a bare </feed> (offset past the results) has no entry");
	is_int(lore_atom_first("<html><body>No results</body></html>", &e, NULL), -1,
	       "an HTML page is not a feed");
	is_int(lore_atom_first("<feed><entry><title>x</title></entry></feed>", &e, NULL), -1,
	       "an entry without link and time is an error");

	net_escape(&sb, "a/b c@d+e~f_g.h-i");
	is_str(sb.buf, "a%2Fb%20c%40d%2Be~f_g.h-i", "percent-encoding");
	strbuf_release(&sb);

	ok(!fetch_parse_since("2024-05-06", 0, &t) && t == 1714953600, "since: a date");
	ok(!fetch_parse_since("2024-05-06T09:00:00Z", 0, &t) && t == 1714986000,
	   "since: a date and time");
	ok(!fetch_parse_since("1714986000", 0, &t) && t == 1714986000, "since: unix seconds");
	ok(!fetch_parse_since("14d", 2000000000, &t) && t == 2000000000 - 14 * 86400,
	   "since: a duration ago");
	ok(fetch_parse_since("last week", 0, &t) < 0, "since: nonsense is refused");
	ok(fetch_parse_since("2024-05-06T09:00", 0, &t) < 0, "since: half a time is refused");
	return done_testing();
}
