// SPDX-License-Identifier: GPL-2.0
/*
 * Every configuration key lorebot reads.  Keep config/lorebot.conf (the
 * documented example) in step; tests check that both agree.
 */
#include "bot/config.h"

const struct cfg_key cfg_keys[] = {
	/* core */
	{ "core.statedir", CFG_PATH, "/var/lib/lorebot", NULL,
	  "where the database, logs, outbox and job directories live" },
	{ "core.db", CFG_PATH, NULL, NULL,
	  "the SQLite database (default: <statedir>/lorebot.db)" },
	{ "core.cachedir", CFG_PATH, NULL, NULL,
	  "kernel trees and build directories shared by jobs, the checkpatch.pl "
	  "lorebot check extracts and its fallback mm.git (default: "
	  "$LOREBOT_CACHE, else /var/cache/lorebot as root, else "
	  "$XDG_CACHE_HOME/lorebot or ~/.cache/lorebot; for builds "
	  "$LOREBOT_CACHE comes before this key)" },
	{ "core.loglevel", CFG_ENUM, "info", "error|warning|info|debug",
	  "how much the daemon logs" },
	{ "core.syslog", CFG_BOOL, "false", NULL,
	  "log to syslog instead of stderr" },
	{ "core.botname", CFG_STRING, "lorebot", NULL,
	  "the name replies are signed with" },
	{ "core.botaddress", CFG_STRING, "lorebot@localhost", NULL,
	  "the address replies come from and Reported-by: names" },
	{ "core.dashboardurl", CFG_STRING, "http://127.0.0.1:8080/", NULL,
	  "public address of the dashboard, linked from replies" },

	/* mailing lists followed on lore (public-inbox) */
	{ "list.*.url", CFG_STRING, NULL, NULL,
	  "base URL of the inbox, e.g. https://lore.kernel.org/linux-mm/" },
	{ "list.*.address", CFG_STRING, NULL, NULL,
	  "the list's posting address, Cc'd on replies" },
	{ "list.*.query", CFG_STRING, NULL, NULL,
	  "public-inbox search restricting what is fetched "
	  "(e.g. 'dfn:mm/ OR s:mm-new'); empty: everything" },
	{ "list.*.pollinterval", CFG_DURATION, "5m", NULL,
	  "how often the list is polled (at least lore.minpoll)" },
	{ "list.*.replymode", CFG_ENUM, NULL, "off|outbox|smtp",
	  "reply mode for this list (default: reply.mode)" },
	{ "list.*.enabled", CFG_BOOL, "true", NULL,
	  "follow this list" },
	{ "list.*.method", CFG_ENUM, "search", "search|git",
	  "search: HTTP searches by received time (a query works); git: the "
	  "inbox's git epochs (everything, exactly once, fastest catch-up)" },
	{ "list.*.since", CFG_STRING, NULL, NULL,
	  "where the first fetch starts: a date (2026-01-31), a duration "
	  "ago (14d) or unix seconds; empty: the whole inbox" },

	/* the public-inbox client */
	{ "lore.timeout", CFG_DURATION, "30s", NULL,
	  "timeout of one HTTP request" },
	{ "lore.retries", CFG_INT, "5", NULL,
	  "attempts per request before a poll gives up" },
	{ "lore.minpoll", CFG_DURATION, "60s", NULL,
	  "the shortest poll interval allowed, whatever a list says" },
	{ "lore.batch", CFG_INT, "1000", NULL,
	  "messages fetched per request when catching up" },
	{ "lore.backoffmax", CFG_DURATION, "10m", NULL,
	  "longest wait between retries after failures" },
	{ "lore.useragent", CFG_STRING, NULL, NULL,
	  "User-Agent sent to lore (default: lorebot/<version>)" },
	{ "lore.retrydelay", CFG_DURATION, "2s", NULL,
	  "first wait before retrying a request; doubled per retry, with jitter" },
	{ "lore.maxbatches", CFG_INT, "10", NULL,
	  "windows of lore.batch messages fetched per pass; more waits for "
	  "the next pass (no request storms after an outage)" },
	{ "lore.overlap", CFG_DURATION, "15m", NULL,
	  "how far back of the newest message each search starts again, for "
	  "mail the server indexes late" },
	{ "lore.indexlag", CFG_DURATION, "2m", NULL,
	  "how long the server's search may lag behind its change probe: "
	  "after a change, lists are searched again until this has passed" },
	{ "lore.gitdir", CFG_PATH, NULL, NULL,
	  "where method git keeps its epoch mirrors (default: <database>.lore)" },
	{ "lore.threads", CFG_INT, "20", NULL,
	  "whole threads fetched per pass for patches whose parent is missing" },

	/* mail parsing */
	{ "mail.maxsize", CFG_SIZE, "16m", NULL,
	  "larger messages are reported and skipped" },
	{ "series.trust", CFG_LIST, NULL, NULL,
	  "senders (addresses) who may continue anyone's series: a change-id, "
	  "lore link or title of another sender joins their sends (a maintainer "
	  "resending); nobody else's does" },
	{ "series.memory", CFG_SIZE, "28m", NULL,
	  "messages series assembly holds in memory ('lorebot series --mbox', "
	  "and the database's: a fetch, db rebuild); past that they move to "
	  "a scratch file in $TMPDIR (else /var/tmp), of which this much at "
	  "most is mapped in at a time" },

	/* the kernel repository and its bases */
	{ "git.repo", CFG_PATH, NULL, NULL,
	  "the bot's kernel repository (bare is fine)" },
	{ "git.base", CFG_LIST, "mm-new", NULL,
	  "branches tried in order when a series has no usable base-commit" },
	{ "git.fetch", CFG_BOOL, "true", NULL,
	  "fetch the remotes' branches before a series is applied, at most "
	  "every git.fetchinterval, and whenever the tree lacks a series' "
	  "base-commit (at most once a minute; then also that commit by its "
	  "id); the daemon fetches "
	  "before each apply job, lorebot apply before it applies" },
	{ "git.fetchinterval", CFG_DURATION, "5m", NULL,
	  "the branches are fetched again once the last fetch is this old "
	  "(0: before every apply)" },
	{ "git.url", CFG_STRING, NULL, NULL,
	  "the public https:// URL of the tree the bases come from, named in "
	  "reports and KCIDB checkouts; lorebot reproduce fetches a base the "
	  "local tree lacks from it (empty: not named)" },
	{ "remote.*.url", CFG_STRING, NULL, NULL,
	  "a remote to fetch, e.g. "
	  "https://git.kernel.org/pub/scm/linux/kernel/git/akpm/mm.git" },
	{ "remote.*.branch", CFG_LIST, NULL, NULL,
	  "branches fetched from that remote (mm-new, mm-unstable, ...)" },
	{ "apply.maxpatchsize", CFG_SIZE, "32m", NULL,
	  "larger patches are refused" },
	{ "apply.trailers", CFG_ENUM, "all", "mail|all",
	  "the trailers commits carry: those of the mail, or all: also those "
	  "given in replies to the patch and to the cover letter, and Link:, "
	  "as b4 shazam adds them" },
	{ "apply.link", CFG_STRING, "https://lore.kernel.org/r/%s", NULL,
	  "the Link: trailer of apply.trailers = all (%s: the patch's "
	  "Message-ID; empty: none), as b4's linkmask" },
	{ "apply.maxfiles", CFG_INT, "10000", NULL,
	  "a patch changing more files is refused (0: no limit)" },
	{ "apply.maxhunks", CFG_INT, "20000", NULL,
	  "a patch with more hunks is refused (0: no limit)" },
	{ "apply.maxbinarysize", CFG_SIZE, "64m", NULL,
	  "a binary patch whose data inflates beyond this is refused, before "
	  "it is inflated whole" },

	/* checkers */
	{ "check.enable", CFG_LIST, NULL, NULL,
	  "checkers to run in addition to the defaults (like -W; lorebot check's "
	  "--checkers is applied after it and check.disable)" },
	{ "check.disable", CFG_LIST, NULL, NULL,
	  "checkers not to run" },
	{ "check.columns", CFG_INT, "80", NULL,
	  "column limit used by one-line-args (80, or 100: the kernel's other limit)" },
	{ "check.checkpatch", CFG_BOOL, "true", NULL,
	  "run scripts/checkpatch.pl from the target tree" },
	{ "check.checkpatchflags", CFG_STRING,
	  "--terse --no-summary --mailback --showfile", NULL,
	  "flags passed to checkpatch.pl (b4's); -q --terse --showfile "
	  "--show-types --no-tree are added and --no-summary and --mailback "
	  "dropped, which changes the output, not the checks" },
	{ "check.codespell", CFG_BOOL, "true", NULL,
	  "check commit messages for typos with codespell's dictionary" },
	{ "check.color", CFG_ENUM, "auto", "auto|always|never",
	  "colours of lorebot check: auto (a terminal, unless NO_COLOR is set)" },

	/* builds */
	{ "build.arch", CFG_LIST, NULL, NULL,
	  "architectures built (default: x86_64, arm64, riscv)" },
	{ "build.profile", CFG_STRING, "small", NULL,
	  "config profile: small (tinyconfig + mm) or production "
	  "(defconfig + mm)" },
	{ "build.jobs", CFG_INT, "2", NULL, "make -j" },
	{ "build.timeout", CFG_DURATION, "45m", NULL,
	  "wall-clock limit of one build step" },
	{ "build.memory", CFG_SIZE, "4g", NULL,
	  "address-space limit of each build process" },
	{ "build.processes", CFG_INT, "4096", NULL,
	  "most processes and threads of the build user at once while a make, "
	  "the selftests' make or qemu runs (RLIMIT_NPROC; 0: no limit)" },
	{ "build.logmax", CFG_SIZE, "8m", NULL,
	  "build output kept per job" },
	{ "build.ccache", CFG_BOOL, "true", NULL, "compile through ccache" },
	{ "build.sparse", CFG_BOOL, "true", NULL,
	  "check the .c files a series touches with sparse (make C=2) and "
	  "report its new warnings" },
	{ "build.coccicheck", CFG_BOOL, "false", NULL,
	  "check the .c files a series touches with the tree's Coccinelle rules "
	  "(make C=2 CHECK=scripts/coccicheck MODE=report) and report their new "
	  "findings: minutes per file and patch, off by default" },
	{ "build.clang", CFG_LIST, "x86_64", NULL,
	  "arches whose touched .c files are also compiled with clang (make "
	  "LLVM=1, in an O= directory of their own) to report clang's new "
	  "warnings and errors; empty: none" },
	{ "build.ccachewrite", CFG_ENUM, "base", "base|all",
	  "which builds add to the shared ccache: base, only commits of a "
	  "git.base branch (a series' build reads it, never writes it); all" },
	{ "build.sandbox", CFG_BOOL, "true", NULL,
	  "sandbox what touches mail or a patched tree: the stages and the fetch pass "
	  "in bubblewrap, mail parsed in a jail" },
	{ "build.user", CFG_STRING, "nobody", NULL,
	  "unprivileged user jobs run as when lorebot runs as root" },
	{ "build.keep", CFG_INT, "3", NULL,
	  "build directories (one per base commit and profile) kept per arch" },
	{ "build.cachesize", CFG_SIZE, "40g", NULL,
	  "disk the build directories of all arches may take: the least recently "
	  "used go first (repaired configurations add directories)" },
	{ "build.repair", CFG_BOOL, "false", NULL,
	  "config repair: turn on (or off) the Kconfig options the changed lines "
	  "need, in a build directory of that configuration (built once per base); off until "
	  "its cost is measured: each repaired configuration is a kernel build" },
	{ "build.mincoverage", CFG_INT, "95", NULL,
	  "percent of the changed lines of an arch's code a build must compile "
	  "to say ok (else: partial)" },
	{ "build.fragments", CFG_PATH, NULL, NULL,
	  "directory of the config fragments (default: config/fragments of "
	  "the source tree, else share/lorebot/fragments of the installation, "
	  "else /usr/share/lorebot/fragments)" },
	{ "arch.*.kernelarch", CFG_STRING, NULL, NULL,
	  "ARCH= for kbuild (x86_64 -> x86_64, arm64, riscv)" },
	{ "arch.*.crosscompile", CFG_STRING, NULL, NULL,
	  "CROSS_COMPILE= prefix (aarch64-linux-gnu-, riscv64-linux-gnu-)" },
	{ "arch.*.image", CFG_STRING, NULL, NULL,
	  "bootable image target (bzImage, Image)" },
	{ "arch.*.fragment", CFG_LIST, NULL, NULL,
	  "extra config fragments for this arch" },
	{ "arch.*.timeout", CFG_DURATION, NULL, NULL,
	  "wall-clock limit of one build step for this arch (default: "
	  "build.timeout)" },
	{ "profile.*.base", CFG_STRING, NULL, NULL,
	  "base configuration target of a profile (tinyconfig, defconfig)" },
	{ "profile.*.fragment", CFG_LIST, NULL, NULL,
	  "config fragments merged into a profile" },

	/* boots */
	{ "boot.enable", CFG_BOOL, "true", NULL,
	  "boot each kernel in qemu and run the mm kselftests" },
	{ "boot.tests", CFG_LIST, NULL, NULL,
	  "kselftests run in the guest (default: the built-in list)" },
	{ "boot.timeout", CFG_DURATION, "5m", NULL,
	  "wall-clock limit of one boot" },
	{ "boot.testtimeout", CFG_DURATION, "60s", NULL,
	  "limit of one kselftest inside the guest" },
	{ "boot.memory", CFG_STRING, "1024", NULL, "guest memory in MiB" },
	{ "boot.kvm", CFG_ENUM, "auto", "auto|on|off",
	  "use KVM: auto probes whether it really works" },
	{ "boot.smp", CFG_INT, "2", NULL, "guest CPUs" },
	{ "boot.confirm", CFG_INT, "5", NULL,
	  "runs that confirm a regression: it fails in all of them on the "
	  "tip and on the patch bisection blames, and passes in every run "
	  "of the base (at least twice as many); else it is flaky" },
	{ "boot.keepkernels", CFG_INT, "200", NULL,
	  "kernel images kept per arch for boots and bisection (least "
	  "recently used go first)" },
	{ "boot.hugepages", CFG_INT, "32", NULL,
	  "huge pages reserved in the guest for the tests (some tests "
	  "reserve their own number)" },
	{ "boot.cmdline", CFG_STRING, NULL, NULL,
	  "added to the guest kernel's command line" },

	/* replies */
	{ "reply.mode", CFG_ENUM, "outbox", "off|outbox|smtp",
	  "off: no mail; outbox: files in a maildir; smtp: send" },
	{ "reply.outbox", CFG_PATH, NULL, NULL,
	  "maildir for outbox mode (default: <statedir>/outbox)" },
	{ "reply.to", CFG_ENUM, "all", "author|all",
	  "reply to the author only, or Cc the list and everyone on the patch" },
	{ "reply.maxcc", CFG_INT, "100", NULL,
	  "a mail with more people on To: and Cc: than this gets a reply to its "
	  "sender, the patch's author and the list only (0: no limit)" },
	{ "reply.clean", CFG_BOOL, "false", NULL,
	  "also mail when everything passed" },
	{ "reply.rfc", CFG_BOOL, "false", NULL, "reply to RFC series" },
	{ "reply.style", CFG_ENUM, "line", "mail|line|off",
	  "checkpatch, codespell and series-hygiene findings, and the new build "
	  "findings of Coccinelle's style rules: mail them, one line pointing at "
	  "the dashboard, or nothing" },
	{ "reply.baseunknown", CFG_ENUM, "review", "off|review|line",
	  "a series that does not apply and whose base-commit the tree lacks: "
	  "no mail (off); its mm-rule findings with a line saying it was not "
	  "built or booted, and no mail without such findings (review); or that "
	  "line alone even then (line)" },
	{ "reply.perhour", CFG_INT, "30", NULL,
	  "at most this many replies per hour" },
	{ "reply.perauthor", CFG_INT, "5", NULL,
	  "at most this many replies per author per hour" },
	{ "reply.ignore", CFG_LIST, NULL, NULL,
	  "addresses (or @domains) never replied to" },
	{ "reply.maintainers", CFG_LIST, NULL, NULL,
	  "addresses whose answers to lorebot's mails (lorebot: invalid, ignore, "
	  "retest) count on any series, besides its author and reviewers" },
	{ "reply.retestinterval", CFG_DURATION, "1h", NULL,
	  "a series is tested again on request (lorebot: retest) at most once in "
	  "this long" },
	{ "reply.templates", CFG_PATH, NULL, NULL,
	  "directory of reply templates (default: the installed templates/)" },
	{ "smtp.url", CFG_STRING, NULL, NULL,
	  "smtp://host:587 (STARTTLS) or smtps://host:465" },
	{ "smtp.credentials", CFG_PATH, NULL, NULL,
	  "file with 'user' and 'password' lines, readable only by its owner" },
	{ "smtp.timeout", CFG_DURATION, "60s", NULL, "SMTP timeout" },
	{ "reply.attempts", CFG_INT, "5", NULL,
	  "delivery attempts of a reply before it is marked failed" },
	{ "reply.retrydelay", CFG_DURATION, "30s", NULL,
	  "wait before retrying a failed delivery; doubled per attempt" },
	{ "reply.backoffmax", CFG_DURATION, "1h", NULL,
	  "longest wait between delivery attempts" },
	{ "reply.indoubt", CFG_DURATION, "15m", NULL,
	  "a reply whose delivery was interrupted (crash) waits this long for the "
	  "list archive to show it before it is sent again, same Message-ID" },
	{ "reply.wait", CFG_DURATION, "2m", NULL,
	  "how long 'lorebot reply' waits for retries before leaving them queued" },
	{ "smtp.starttls", CFG_ENUM, "auto", "auto|always|never",
	  "smtp:// only: auto uses STARTTLS when offered (required with "
	  "credentials), always requires it, never does not try" },
	{ "smtp.cainfo", CFG_PATH, NULL, NULL,
	  "CA certificates the SMTP server is verified with (default: the system's)" },
	{ "smtp.from", CFG_STRING, NULL, NULL,
	  "envelope sender (default: core.botaddress)" },

	/* dashboard */
	{ "web.listen", CFG_STRING, "127.0.0.1:8080", NULL,
	  "address the dashboard listens on" },
	{ "web.refresh", CFG_DURATION, "30s", NULL,
	  "how often the series list refreshes itself" },
	{ "web.templates", CFG_PATH, NULL, NULL,
	  "directory of the dashboard page templates (default: the installed "
	  "templates/)" },
	{ "web.logroot", CFG_PATH, NULL, NULL,
	  "job logs under this directory may be shown on the dashboard "
	  "(default: core.statedir)" },

	/* KernelCI's database (KCIDB v5.3): lorebot export --kcidb, the daemon */
	{ "kcidb.origin", CFG_STRING, "lorebot", NULL,
	  "the origin of lorebot's objects and the prefix of their ids "
	  "(lowercase letters, digits, _)" },
	{ "kcidb.dir", CFG_PATH, NULL, NULL,
	  "the daemon writes each version's KCIDB document here when its "
	  "pipeline ends (<dir>/<version>.json; empty: none written)" },
	{ "kcidb.url", CFG_STRING, NULL, NULL,
	  "a KCIDB submission URL the daemon POSTs each document to "
	  "(empty: none)" },
	{ "kcidb.tokenfile", CFG_PATH, NULL, NULL,
	  "a file only its owner can read, holding the token sent as "
	  "'Authorization: Bearer <token>' with each submission" },
	{ "kcidb.timeout", CFG_DURATION, "30s", NULL,
	  "timeout of one submission" },

	/* patchwork checks */
	{ "patchwork.url", CFG_STRING, NULL, NULL,
	  "the patchwork instance the daemon posts checks to, e.g. "
	  "https://patchwork.kernel.org (empty: none posted)" },
	{ "patchwork.project", CFG_STRING, NULL, NULL,
	  "the project's link name on it (linux-mm)" },
	{ "patchwork.tokenfile", CFG_PATH, NULL, NULL,
	  "a file only its owner can read, holding the API token of the "
	  "account the checks are posted as" },
	{ "patchwork.pending", CFG_BOOL, "false", NULL,
	  "also post a 'pending' check for each context when the version's "
	  "testing starts (then two checks per patch and context)" },
	{ "patchwork.attempts", CFG_INT, "8", NULL,
	  "attempts of a check (the patch not in patchwork yet, a server "
	  "error) before it is marked failed" },
	{ "patchwork.retrydelay", CFG_DURATION, "1m", NULL,
	  "wait before retrying a check; doubled per attempt, at most 1h" },
	{ "patchwork.timeout", CFG_DURATION, "30s", NULL,
	  "timeout of one request to patchwork" },

	/* daemon */
	{ "daemon.builds", CFG_INT, "1", NULL,
	  "kernel builds and boots running at once" },
	{ "daemon.light", CFG_INT, "2", NULL,
	  "light jobs (apply, checkers, replies) running at once" },
	{ "daemon.window", CFG_DURATION, "30m", NULL,
	  "how long an incomplete series waits for its missing patches" },
	{ "daemon.attempts", CFG_INT, "3", NULL,
	  "attempts of a job before it is marked failed" },
	{ "daemon.jobtimeout", CFG_DURATION, "3h", NULL,
	  "wall-clock limit of any one job" },
	{ "daemon.fetchtimeout", CFG_DURATION, "15m", NULL,
	  "wall-clock limit of one fetch pass (a child of the daemon)" },
	{ "daemon.maxage", CFG_DURATION, "0", NULL,
	  "versions sent longer ago than this are not tested (0: any age)" },
	{ "daemon.executor", CFG_ENUM, "local", "local|slurm",
	  "where the stages of slurm.stages run: local (child processes of the "
	  "daemon) or slurm (batch jobs on a Slurm cluster)" },

	/* the Slurm executor (daemon.executor = slurm) */
	{ "slurm.stages", CFG_LIST, NULL, NULL,
	  "stages submitted to Slurm (default: the heavy ones, build and boot); "
	  "replies always run in the daemon" },
	{ "slurm.maxjobs", CFG_INT, "16", NULL,
	  "heavy jobs submitted to Slurm at once (instead of daemon.builds)" },
	{ "slurm.partition", CFG_STRING, NULL, NULL,
	  "sbatch --partition (default: the cluster's default partition)" },
	{ "slurm.account", CFG_STRING, NULL, NULL,
	  "sbatch --account" },
	{ "slurm.flags", CFG_LIST, NULL, NULL,
	  "extra sbatch options for every job, one per value (--qos=normal)" },
	{ "slurm.pollinterval", CFG_DURATION, "2s", NULL,
	  "how often squeue is asked about the jobs submitted" },
	{ "slurm.timeout", CFG_DURATION, "30s", NULL,
	  "wall-clock limit of one sbatch, squeue, scontrol or scancel" },
	{ "slurm.*.cpus", CFG_INT, NULL, NULL,
	  "CPUs a stage's job asks for (default: build.jobs for build, boot.smp "
	  "for boot, else 1)" },
	{ "slurm.*.mem", CFG_SIZE, NULL, NULL,
	  "memory a stage's job asks for (default: none asked)" },
	{ "slurm.*.time", CFG_DURATION, NULL, NULL,
	  "Slurm's time limit of a stage's job (default: daemon.jobtimeout + 5m)" },
	{ "slurm.*.flags", CFG_LIST, NULL, NULL,
	  "extra sbatch options of a stage's jobs, after slurm.flags" },
};

const size_t cfg_keys_nr = ARRAY_SIZE(cfg_keys);
