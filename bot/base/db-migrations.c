// SPDX-License-Identifier: GPL-2.0
/*
 * The schema, as an ordered list of migrations.  To change it, append
 * one entry (a new unique name and its SQL); never edit an entry that
 * was released: databases out there have applied it.  db_open() applies
 * what a database lacks, each entry in one transaction.
 */
#include "bot/base/db.h"

/* lore: lists followed, messages as received, series as assembled */
static const char lore_1[] =
	"CREATE TABLE lists ("
	"  id INTEGER PRIMARY KEY,"
	"  name TEXT NOT NULL UNIQUE,"
	"  url TEXT NOT NULL,"
	"  query TEXT NOT NULL DEFAULT '',"
	"  cursor INTEGER,"		/* rt: of the next search; NULL: never fetched */
	"  probe TEXT,"			/* what the change probe saw last time */
	"  probe_seen INTEGER,"		/* when it first saw that */
	"  last_search INTEGER,"	/* start of the last complete search */
	"  last_poll INTEGER,"
	"  last_ok INTEGER,"
	"  next_poll INTEGER,"		/* back-off: no poll before this */
	"  failures INTEGER NOT NULL DEFAULT 0,"
	"  last_error TEXT"
	");"
	"CREATE TABLE lore_epochs ("	/* lists followed through their git epochs */
	"  list INTEGER NOT NULL REFERENCES lists (id),"
	"  epoch INTEGER NOT NULL,"
	"  fingerprint TEXT,"		/* manifest.js.gz's, when fully stored */
	"  head TEXT,"			/* the last commit whose message is stored */
	"  PRIMARY KEY (list, epoch)"
	");"
	"CREATE TABLE messages ("
	"  id INTEGER PRIMARY KEY,"
	"  msgid TEXT NOT NULL,"	/* without <> */
	"  hash TEXT NOT NULL,"		/* FNV-1a 64 of raw: finds candidates */
	"  raw BLOB NOT NULL,"		/* exactly as received */
	"  size INTEGER NOT NULL,"
	"  subject TEXT,"
	"  from_name TEXT,"
	"  from_email TEXT,"
	"  date INTEGER,"		/* Date: in unix seconds */
	"  parent TEXT,"		/* In-Reply-To, else the last reference */
	"  meta TEXT,"			/* struct msg as JSON (store-msg.c) */
	"  meta_version TEXT,"		/* store_parse_stamp() of meta, or "failed <lorebot>" */
	"  error TEXT,"			/* why it could not be parsed */
	"  fetched INTEGER NOT NULL"
	");"
	"CREATE INDEX messages_msgid ON messages (msgid);"
	"CREATE INDEX messages_hash ON messages (hash);"
	"CREATE INDEX messages_parent ON messages (parent);"
	"CREATE TABLE list_messages ("
	"  list INTEGER NOT NULL REFERENCES lists (id),"
	"  message INTEGER NOT NULL REFERENCES messages (id),"
	"  PRIMARY KEY (list, message)"
	") WITHOUT ROWID;"
	"CREATE TABLE series ("
	"  id TEXT PRIMARY KEY,"	/* 12 hex digits: hash of the series key */
	"  title TEXT NOT NULL,"
	"  author_name TEXT,"
	"  author_email TEXT,"
	"  created INTEGER NOT NULL,"
	"  updated INTEGER NOT NULL"
	");"
	"CREATE TABLE versions ("	/* one send (posting) of a version */
	"  id TEXT PRIMARY KEY,"	/* Message-ID of the cover, else of patch 1 */
	"  series TEXT NOT NULL REFERENCES series (id),"
	"  ord INTEGER NOT NULL,"	/* position in `lorebot series` */
	"  version INTEGER NOT NULL,"
	"  total INTEGER NOT NULL,"
	"  have INTEGER NOT NULL,"
	"  complete INTEGER NOT NULL,"
	"  rfc INTEGER NOT NULL,"
	"  resend INTEGER NOT NULL,"
	"  tree TEXT,"
	"  title TEXT NOT NULL,"
	"  author_name TEXT,"
	"  author_email TEXT,"
	"  cover TEXT,"
	"  base_commit TEXT,"
	"  change_id TEXT,"
	"  superseded_by TEXT,"
	"  date INTEGER,"
	"  replies INTEGER NOT NULL,"
	"  json TEXT NOT NULL,"		/* the object `lorebot series --json` prints */
	"  generation INTEGER NOT NULL DEFAULT 1,"	/* +1 on every change */
	"  gone INTEGER NOT NULL DEFAULT 0,"
	"  created INTEGER NOT NULL,"
	"  updated INTEGER NOT NULL"
	");"
	"CREATE INDEX versions_series ON versions (series);"
	"CREATE TABLE patches ("
	"  version TEXT NOT NULL REFERENCES versions (id) ON DELETE CASCADE,"
	"  n INTEGER NOT NULL,"
	"  message INTEGER REFERENCES messages (id),"
	"  msgid TEXT NOT NULL,"
	"  subject TEXT NOT NULL,"
	"  title TEXT,"
	"  author_name TEXT,"
	"  author_email TEXT,"
	"  PRIMARY KEY (version, n)"
	");"
	"CREATE INDEX patches_msgid ON patches (msgid);"
	"CREATE TABLE trailers ("
	"  version TEXT NOT NULL,"
	"  n INTEGER NOT NULL,"
	"  pos INTEGER NOT NULL,"
	"  name TEXT NOT NULL,"
	"  value TEXT NOT NULL,"
	"  PRIMARY KEY (version, n, pos),"
	"  FOREIGN KEY (version, n) REFERENCES patches (version, n) ON DELETE CASCADE"
	");"
	"CREATE TABLE state ("		/* small facts: series_dirty, problems */
	"  key TEXT PRIMARY KEY,"
	"  value TEXT"
	");";

/*
 * report: what each stage found for a version (the JSON document of its
 * contract, one row per version, stage and arch; '' when not per arch),
 * and the replies mailed about it (one per version and outcome kind;
 * the mail is stored before it is sent, so a retry sends the same bytes
 * with the same Message-ID).  bot/results/results.h and bot/report/reply.h.
 */
static const char report_1[] =
	"CREATE TABLE results ("
	"  id INTEGER PRIMARY KEY,"
	"  version TEXT NOT NULL REFERENCES versions (id),"
	"  stage TEXT NOT NULL CHECK (stage IN ('apply', 'check', 'build', 'boot')),"
	"  arch TEXT NOT NULL DEFAULT '',"
	"  status TEXT NOT NULL,"	/* per stage: results_status() */
	"  summary TEXT NOT NULL,"	/* one line for people */
	"  findings INTEGER NOT NULL DEFAULT 0,"	/* reportable ones */
	"  json TEXT NOT NULL,"		/* the stage's document, as recorded */
	"  generation INTEGER,"		/* versions.generation it was made for */
	"  recorded INTEGER NOT NULL,"
	"  UNIQUE (version, stage, arch)"
	");"
	"CREATE INDEX results_version ON results (version);"
	"CREATE TABLE replies ("
	"  id INTEGER PRIMARY KEY,"
	"  version TEXT NOT NULL REFERENCES versions (id),"
	"  kind TEXT NOT NULL,"		/* apply, build, check, boot, clean */
	"  patch INTEGER NOT NULL,"	/* replied to: 0 the cover letter */
	"  msgid TEXT NOT NULL UNIQUE,"	/* without <> */
	"  in_reply_to TEXT NOT NULL,"
	"  subject TEXT NOT NULL,"
	"  author TEXT,"		/* the To address, lowercase */
	"  recipients TEXT NOT NULL,"	/* {"to": [...], "cc": [...]} */
	"  mode TEXT NOT NULL,"		/* outbox, smtp */
	"  state TEXT NOT NULL CHECK (state IN"
	"    ('queued', 'sending', 'sent', 'failed', 'skipped')),"
	"  reason TEXT,"		/* why skipped, the last error */
	"  attempts INTEGER NOT NULL DEFAULT 0,"
	"  next_attempt INTEGER NOT NULL DEFAULT 0,"
	"  mail BLOB NOT NULL,"		/* the message every attempt sends */
	"  created INTEGER NOT NULL,"
	"  updated INTEGER NOT NULL,"
	"  sent INTEGER,"
	"  UNIQUE (version, kind)"
	");"
	"CREATE INDEX replies_state ON replies (state, next_attempt);";

/* daemon: the job queue (bot/sched/queue.h) */
static const char daemon_1[] =
	"CREATE TABLE jobs ("
	"  id INTEGER PRIMARY KEY,"
	"  kind TEXT NOT NULL,"		/* apply, check, build, boot, reply */
	"  version TEXT NOT NULL,"	/* versions.id */
	"  arch TEXT NOT NULL DEFAULT '',"
	"  state TEXT NOT NULL DEFAULT 'queued',"
	"  attempts INTEGER NOT NULL DEFAULT 0,"
	"  pid INTEGER,"
	"  log TEXT,"
	"  error TEXT,"
	"  priority INTEGER NOT NULL DEFAULT 0,"	/* newer versions first */
	"  queued INTEGER NOT NULL,"
	"  started INTEGER,"
	"  finished INTEGER,"
	"  UNIQUE (kind, version, arch)"
	");"
	"CREATE INDEX jobs_state ON jobs (state, priority);"
	"CREATE INDEX jobs_version ON jobs (version);";

/*
 * daemon-2: how often the daemon died while a job ran (not an attempt of
 * the job's), and the executor's handle of a running job (run_pool).
 */
static const char daemon_2[] =
	"ALTER TABLE jobs ADD COLUMN interrupts INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE jobs ADD COLUMN handle TEXT;";

/*
 * lore-2: incremental assembly (bot/store/store-update.c).  message_keys holds
 * what relates a message to others (series_msg_each_key()); series_pending the
 * messages stored since the series were last assembled; the series'
 * order is their first version's date and id (versions.ord becomes the
 * position in its series, so that re-assembling one series moves no
 * other); problems are kept per message; the messages an older lorebot
 * parsed are found by index; the dashboard's list walks versions_live.  The first assembly after this
 * migration is a full one (state series_full), which fills message_keys.
 */
static const char lore_2[] =
	"CREATE TABLE message_keys ("
	"  key TEXT NOT NULL,"
	"  message INTEGER NOT NULL,"	/* messages.id */
	"  PRIMARY KEY (key, message)"
	") WITHOUT ROWID;"
	"CREATE INDEX message_keys_message ON message_keys (message);"
	"CREATE TABLE series_pending ("
	"  message INTEGER PRIMARY KEY"	/* messages.id */
	");"
	"CREATE TABLE series_problems ("
	"  msgid TEXT NOT NULL,"		/* the message the line is about */
	"  line TEXT NOT NULL"
	");"
	"CREATE INDEX series_problems_msgid ON series_problems (msgid);"
	"ALTER TABLE series ADD COLUMN first_date INTEGER;"
	"ALTER TABLE series ADD COLUMN first_version TEXT;"
	"CREATE INDEX versions_cover ON versions (cover);"
	"CREATE INDEX versions_live ON versions (gone, date, id);"
	"CREATE INDEX messages_meta_version ON messages (meta_version);"
	"INSERT OR REPLACE INTO state (key, value) VALUES ('series_full', '1');";

/*
 * daemon-3: where a job ran: the Slurm job id of its last attempt (NULL:
 * the local executor) and the node, kept after it ended.
 */
static const char daemon_3[] =
	"ALTER TABLE jobs ADD COLUMN slurm_job INTEGER;"
	"ALTER TABLE jobs ADD COLUMN node TEXT;";

/*
 * lore-3: incremental assembly follows a sender's sends of one version
 * and count only from the patches threading did not place, which each
 * assembly marks ("u:" keys); the first assembly after this migration is
 * a full one, which marks them.
 */
static const char lore_3[] =
	"INSERT OR REPLACE INTO state (key, value) VALUES ('series_full', '1');";

/*
 * The triggers that mark a version's state dirty when its results change
 * (report-2; report-5 makes them again for the table it rebuilds)
 */
#define RESULTS_STATE_TRIGGERS \
	"CREATE TRIGGER results_state_insert AFTER INSERT ON results BEGIN" \
	"  INSERT INTO version_states_dirty SELECT NEW.version WHERE NOT EXISTS" \
	"  (SELECT 1 FROM version_states_dirty WHERE version = NEW.version); END;" \
	"CREATE TRIGGER results_state_update AFTER UPDATE ON results BEGIN" \
	"  INSERT INTO version_states_dirty SELECT OLD.version WHERE NOT EXISTS" \
	"  (SELECT 1 FROM version_states_dirty WHERE version = OLD.version);" \
	"  INSERT INTO version_states_dirty SELECT NEW.version WHERE NOT EXISTS" \
	"  (SELECT 1 FROM version_states_dirty WHERE version = NEW.version); END;" \
	"CREATE TRIGGER results_state_delete AFTER DELETE ON results BEGIN" \
	"  INSERT INTO version_states_dirty SELECT OLD.version WHERE NOT EXISTS" \
	"  (SELECT 1 FROM version_states_dirty WHERE version = OLD.version); END;"

/*
 * report-2: the state of every live version (report_state()'s word) kept
 * beside it, so that the dashboard's state filter is a range of an index
 * and /metrics a GROUP BY, not a derivation of every version
 * (bot/report/report-states.c).  The triggers mark a version dirty whenever
 * what its state is derived from changes (its results, its row), by
 * lorebot or by hand; whoever writes with a configuration derives the
 * dirty ones again before committing, and readers trust the table only
 * while nothing is dirty and it was derived for their build.arch and
 * boot.enable (state version_states).  Every version starts dirty.  (A
 * trigger's OR IGNORE would yield to the ON CONFLICT of the statement
 * that fired it, hence WHERE NOT EXISTS.)
 */
static const char report_2[] =
	"CREATE TABLE version_states ("
	"  version TEXT PRIMARY KEY,"	/* versions.id, not gone */
	"  state TEXT NOT NULL,"		/* report_state() */
	"  date INTEGER NOT NULL"		/* versions.date: the pages' order */
	") WITHOUT ROWID;"
	"CREATE INDEX version_states_state ON version_states (state, date, version);"
	"CREATE TABLE version_states_dirty ("
	"  version TEXT PRIMARY KEY"	/* to derive again */
	") WITHOUT ROWID;"
	RESULTS_STATE_TRIGGERS
	"CREATE TRIGGER versions_state_insert AFTER INSERT ON versions BEGIN"
	"  INSERT INTO version_states_dirty SELECT NEW.id WHERE NOT EXISTS"
	"  (SELECT 1 FROM version_states_dirty WHERE version = NEW.id); END;"
	"CREATE TRIGGER versions_state_update AFTER UPDATE OF id, complete, base_commit,"
	"  superseded_by, date, gone ON versions BEGIN"
	"  INSERT INTO version_states_dirty SELECT OLD.id WHERE NOT EXISTS"
	"  (SELECT 1 FROM version_states_dirty WHERE version = OLD.id);"
	"  INSERT INTO version_states_dirty SELECT NEW.id WHERE NOT EXISTS"
	"  (SELECT 1 FROM version_states_dirty WHERE version = NEW.id); END;"
	"CREATE TRIGGER versions_state_delete AFTER DELETE ON versions BEGIN"
	"  INSERT INTO version_states_dirty SELECT OLD.id WHERE NOT EXISTS"
	"  (SELECT 1 FROM version_states_dirty WHERE version = OLD.id); END;"
	"INSERT OR IGNORE INTO version_states_dirty SELECT id FROM versions;";

/*
 * report-3: a report's permanent record (bot/report/report-snap.c): what a
 * reply said and what reproducing it needs, as it was when it was
 * composed, so that its page (/r/<id>) and `lorebot reproduce` give the
 * same answer after later versions, reruns and a rebuild.  The id is
 * the reply's Message-ID up to "-lorebot@"; files are gzip (the
 * .config of each arch the report is about).
 */
static const char report_3[] =
	"CREATE TABLE reports ("
	"  id TEXT PRIMARY KEY,"
	"  reply INTEGER NOT NULL UNIQUE,"	/* replies.id */
	"  version TEXT NOT NULL,"
	"  json TEXT NOT NULL,"			/* the snapshot */
	"  created INTEGER NOT NULL"
	");"
	"CREATE TABLE report_files ("
	"  report TEXT NOT NULL,"		/* reports.id */
	"  name TEXT NOT NULL,"			/* config-<arch> */
	"  data BLOB NOT NULL,"			/* gzip */
	"  PRIMARY KEY (report, name)"
	") WITHOUT ROWID;";

/*
 * patchwork-1: the checks posted to patchwork (bot/export/patchwork.h), one row
 * per patch, context and phase ("pending" when testing starts, with
 * patchwork.pending; "final"), stored before any attempt and moved
 * queued -> sending -> sent (or failed) like the replies, so that none
 * is posted twice, even across a crash
 */
static const char patchwork_1[] =
	"CREATE TABLE pw_checks ("
	"  id INTEGER PRIMARY KEY,"
	"  version TEXT NOT NULL,"
	"  patch INTEGER NOT NULL,"
	"  msgid TEXT NOT NULL,"		/* the patch's, without <> */
	"  context TEXT NOT NULL,"
	"  phase TEXT NOT NULL CHECK (phase IN ('pending', 'final')),"
	"  state TEXT NOT NULL CHECK (state IN ('pending', 'success', 'warning', 'fail')),"
	"  description TEXT NOT NULL,"
	"  target_url TEXT,"
	"  status TEXT NOT NULL CHECK (status IN ('queued', 'sending', 'sent', 'failed')),"
	"  pw_patch INTEGER,"		/* the patch's id on patchwork, once found */
	"  pw_check INTEGER,"		/* the check's, once created */
	"  attempts INTEGER NOT NULL DEFAULT 0,"
	"  next_attempt INTEGER NOT NULL DEFAULT 0,"
	"  reason TEXT,"
	"  created INTEGER NOT NULL,"
	"  updated INTEGER NOT NULL,"
	"  sent INTEGER,"
	"  UNIQUE (msgid, context, phase)"
	");"
	"CREATE INDEX pw_checks_due ON pw_checks (status, next_attempt);"
	"CREATE INDEX pw_checks_version ON pw_checks (version);";

/*
 * lore-4: of several messages with one Message-ID (variants), the one
 * assembly uses is the one the archive has first, not the one stored
 * first: lore answers a search in an order of its own, and a copy
 * backdated by its sender came first in it (issue 38).  arrival is a
 * message's place among its Message-ID's messages as the archive lists
 * them (its /raw, in the order they arrived); NULL when not asked.
 */
static const char lore_4[] =
	"ALTER TABLE messages ADD COLUMN arrival INTEGER;";

/*
 * report-4: answers to lorebot's mails (bot/report/reply-answers.c).  Every
 * "lorebot:" command read in a reply to one of its mails, once per
 * message and line, with what came of it; the findings and rules
 * dismissed per series (not mailed for later versions, shown dismissed
 * on the dashboard); the retests asked for, which give the version's
 * replies a new round.
 */
static const char report_4[] =
	"CREATE TABLE answers ("
	"  msgid TEXT NOT NULL,"		/* the answer */
	"  line INTEGER NOT NULL,"		/* its n-th command */
	"  version TEXT,"			/* the version the answered mail is about */
	"  sender TEXT,"
	"  command TEXT NOT NULL,"		/* "invalid 3a9c01d2 not a leak" */
	"  outcome TEXT NOT NULL CHECK (outcome IN ('done', 'ignored')),"
	"  reason TEXT,"			/* what was done, or why not */
	"  created INTEGER NOT NULL,"
	"  PRIMARY KEY (msgid, line)"
	") WITHOUT ROWID;"
	"CREATE TABLE dismissals ("
	"  series TEXT NOT NULL,"
	"  kind TEXT NOT NULL CHECK (kind IN ('finding', 'rule')),"
	"  target TEXT NOT NULL,"		/* a finding id, or a rule */
	"  who TEXT NOT NULL,"
	"  why TEXT,"
	"  msgid TEXT NOT NULL,"		/* the answer */
	"  version TEXT,"
	"  created INTEGER NOT NULL,"
	"  PRIMARY KEY (series, kind, target)"
	") WITHOUT ROWID;"
	"CREATE TABLE retests ("
	"  id INTEGER PRIMARY KEY,"
	"  series TEXT NOT NULL,"
	"  version TEXT NOT NULL,"		/* the version tested again */
	"  msgid TEXT NOT NULL,"
	"  who TEXT NOT NULL,"
	"  created INTEGER NOT NULL"
	");"
	"CREATE INDEX retests_series ON retests (series, created);"
	"CREATE INDEX retests_version ON retests (version);";

/*
 * report-5: the results table without its CHECK on the stage's name,
 * which made every new stage a table rebuild: a stage's name is the
 * stage table's (bot/results/plan.h), checked where a result is recorded
 * (stage_record()), and a reader skips a row of a stage it does
 * not know.  SQLite cannot drop a constraint, so the table is made
 * again, with its rows, index and triggers.
 */
static const char report_5[] =
	"CREATE TABLE results_new ("
	"  id INTEGER PRIMARY KEY,"
	"  version TEXT NOT NULL REFERENCES versions (id),"
	"  stage TEXT NOT NULL,"		/* a row of the stage table */
	"  arch TEXT NOT NULL DEFAULT '',"
	"  status TEXT NOT NULL,"
	"  summary TEXT NOT NULL,"
	"  findings INTEGER NOT NULL DEFAULT 0,"
	"  json TEXT NOT NULL,"
	"  generation INTEGER,"
	"  recorded INTEGER NOT NULL,"
	"  UNIQUE (version, stage, arch)"
	");"
	"INSERT INTO results_new (id, version, stage, arch, status, summary, findings, json,"
	"  generation, recorded) SELECT id, version, stage, arch, status, summary, findings,"
	"  json, generation, recorded FROM results;"
	"DROP TABLE results;"
	"ALTER TABLE results_new RENAME TO results;"
	"CREATE INDEX results_version ON results (version);"
	RESULTS_STATE_TRIGGERS;

const struct db_migration db_migrations[] = {
	{ "lore-1", lore_1 },
	{ "report-1", report_1 },
	{ "daemon-1", daemon_1 },
	{ "daemon-2", daemon_2 },
	{ "lore-2", lore_2 },
	{ "daemon-3", daemon_3 },
	{ "lore-3", lore_3 },
	{ "report-2", report_2 },
	{ "report-3", report_3 },
	{ "patchwork-1", patchwork_1 },
	{ "lore-4", lore_4 },
	{ "report-4", report_4 },
	{ "report-5", report_5 },
};

const size_t db_migrations_nr = ARRAY_SIZE(db_migrations);
