/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every configuration key lorebot reads: the single source of the key
 * table (cfg_keys[], which the docs, "lorebot config --list-keys" and
 * "--check" read), of the typed values (struct config_values, one field
 * per key, config_v(cfg)-><id>) and of the ids (CFG_ID_<id>, CFG_SUB_<id>).
 * Keep config/lorebot.conf (the documented example) in step; tests check
 * that both agree.  doc/technical/configuration.md: how to add a key.
 *
 * CFG_KEY(id, name, type, default, choices, help): a key of a section,
 *	read as config_v(cfg)->id;
 * CFG_SUBKEY(id, name, type, default, choices, help): a key of a
 *	subsection, "list.*.url", read through config_sub*(CFG_SUB_id, name).
 * id is the name with "." (and ".*.") as "_"; type is STRING, PATH, BOOL,
 * INT, SIZE, DURATION, ENUM (choices "a|b|c") or LIST.
 *
 * No include guard: the includer defines CFG_KEY and CFG_SUBKEY, includes
 * this file, and it undefines them.
 */

/* core */
CFG_KEY(core_statedir, "core.statedir", PATH, "/var/lib/lorebot", NULL,
	"where the database, logs, outbox and job directories live")
CFG_KEY(core_db, "core.db", PATH, NULL, NULL,
	"the SQLite database (default: <statedir>/lorebot.db)")
CFG_KEY(core_cachedir, "core.cachedir", PATH, NULL, NULL,
	"kernel trees and build directories shared by jobs, the checkpatch.pl "
	"lorebot check extracts and its fallback mm.git ($LOREBOT_CACHE, when "
	"set, comes before this key; default: /var/cache/lorebot as root, "
	"else $XDG_CACHE_HOME/lorebot or ~/.cache/lorebot)")
CFG_KEY(core_loglevel, "core.loglevel", ENUM, "info", "error|warning|info|debug",
	"how much the daemon logs")
CFG_KEY(core_syslog, "core.syslog", BOOL, "false", NULL,
	"log to syslog instead of stderr")
CFG_KEY(core_botname, "core.botname", STRING, "lorebot", NULL,
	"the name replies are signed with")
CFG_KEY(core_botaddress, "core.botaddress", STRING, "lorebot@localhost", NULL,
	"the address replies come from and Reported-by: names")
CFG_KEY(core_dashboardurl, "core.dashboardurl", STRING, "http://127.0.0.1:8080/", NULL,
	"public address of the dashboard, linked from replies")

/* mailing lists followed on lore (public-inbox) */
CFG_SUBKEY(list_url, "list.*.url", STRING, NULL, NULL,
	"base URL of the inbox, e.g. https://lore.kernel.org/linux-mm/")
CFG_SUBKEY(list_address, "list.*.address", STRING, NULL, NULL,
	"the list's posting address, Cc'd on replies")
CFG_SUBKEY(list_query, "list.*.query", STRING, NULL, NULL,
	"public-inbox search restricting what is fetched "
	"(e.g. 'dfn:mm/ OR s:mm-new'); empty: everything")
CFG_SUBKEY(list_pollinterval, "list.*.pollinterval", DURATION, "5m", NULL,
	"how often the list is polled (at least lore.minpoll)")
CFG_SUBKEY(list_replymode, "list.*.replymode", ENUM, NULL, "off|outbox|smtp",
	"reply mode for this list (default: reply.mode)")
CFG_SUBKEY(list_enabled, "list.*.enabled", BOOL, "true", NULL,
	"follow this list")
CFG_SUBKEY(list_method, "list.*.method", ENUM, "search", "search|git",
	"search: HTTP searches by received time (a query works); git: the "
	"inbox's git epochs (everything, exactly once, fastest catch-up)")
CFG_SUBKEY(list_since, "list.*.since", STRING, NULL, NULL,
	"where the first fetch starts: a date (2026-01-31), a duration "
	"ago (14d) or unix seconds; empty: the whole inbox")

/* the public-inbox client */
CFG_KEY(lore_timeout, "lore.timeout", DURATION, "30s", NULL,
	"timeout of one HTTP request")
CFG_KEY(lore_retries, "lore.retries", INT, "5", NULL,
	"attempts per request before a poll gives up")
CFG_KEY(lore_minpoll, "lore.minpoll", DURATION, "60s", NULL,
	"the shortest poll interval allowed, whatever a list says")
CFG_KEY(lore_batch, "lore.batch", INT, "1000", NULL,
	"messages fetched per request when catching up")
CFG_KEY(lore_backoffmax, "lore.backoffmax", DURATION, "10m", NULL,
	"longest wait between retries after failures")
CFG_KEY(lore_useragent, "lore.useragent", STRING, NULL, NULL,
	"User-Agent sent to lore (default: lorebot/<version>)")
CFG_KEY(lore_retrydelay, "lore.retrydelay", DURATION, "2s", NULL,
	"first wait before retrying a request; doubled per retry, with jitter")
CFG_KEY(lore_maxbatches, "lore.maxbatches", INT, "10", NULL,
	"windows of lore.batch messages fetched per pass; more waits for "
	"the next pass (no request storms after an outage)")
CFG_KEY(lore_overlap, "lore.overlap", DURATION, "15m", NULL,
	"how far back of the newest message each search starts again, for "
	"mail the server indexes late")
CFG_KEY(lore_indexlag, "lore.indexlag", DURATION, "2m", NULL,
	"how long the server's search may lag behind its change probe: "
	"after a change, lists are searched again until this has passed")
CFG_KEY(lore_gitdir, "lore.gitdir", PATH, NULL, NULL,
	"where method git keeps its epoch mirrors (default: <database>.lore)")
CFG_KEY(lore_threads, "lore.threads", INT, "20", NULL,
	"whole threads fetched per pass for patches whose parent is missing")

/* mail parsing */
CFG_KEY(mail_maxsize, "mail.maxsize", SIZE, "16m", NULL,
	"larger messages are reported and skipped")
CFG_KEY(series_trust, "series.trust", LIST, NULL, NULL,
	"senders (addresses) who may continue anyone's series: a change-id, "
	"lore link or title of another sender joins their sends (a maintainer "
	"resending); nobody else's does")
CFG_KEY(series_memory, "series.memory", SIZE, "28m", NULL,
	"messages series assembly holds in memory ('lorebot series --mbox', "
	"and the database's: a fetch, db rebuild); past that they move to "
	"a scratch file in $TMPDIR (else /var/tmp), of which this much at "
	"most is mapped in at a time")

/* the kernel repository and its bases */
CFG_KEY(git_repo, "git.repo", PATH, NULL, NULL,
	"the bot's kernel repository (bare is fine)")
CFG_KEY(git_base, "git.base", LIST, "mm-new", NULL,
	"branches tried in order when a series has no usable base-commit")
CFG_KEY(git_fetch, "git.fetch", BOOL, "true", NULL,
	"fetch the remotes' branches before a series is applied, at most "
	"every git.fetchinterval, and whenever the tree lacks a series' "
	"base-commit (at most once a minute; then also that commit by its "
	"id); the daemon fetches "
	"before each apply job, lorebot apply before it applies")
CFG_KEY(git_fetchinterval, "git.fetchinterval", DURATION, "5m", NULL,
	"the branches are fetched again once the last fetch is this old "
	"(0: before every apply)")
CFG_KEY(git_url, "git.url", STRING, NULL, NULL,
	"the public https:// URL of the tree the bases come from, named in "
	"reports and KCIDB checkouts; lorebot reproduce fetches a base the "
	"local tree lacks from it (empty: not named)")
CFG_SUBKEY(remote_url, "remote.*.url", STRING, NULL, NULL,
	"a remote to fetch, e.g. "
	"https://git.kernel.org/pub/scm/linux/kernel/git/akpm/mm.git")
CFG_SUBKEY(remote_branch, "remote.*.branch", LIST, NULL, NULL,
	"branches fetched from that remote (mm-new, mm-unstable, ...)")
CFG_KEY(apply_maxpatchsize, "apply.maxpatchsize", SIZE, "32m", NULL,
	"larger patches are refused")
CFG_KEY(apply_trailers, "apply.trailers", ENUM, "all", "mail|all",
	"the trailers commits carry: those of the mail, or all: also those "
	"given in replies to the patch and to the cover letter, and Link:, "
	"as b4 shazam adds them")
CFG_KEY(apply_link, "apply.link", STRING, "https://lore.kernel.org/r/%s", NULL,
	"the Link: trailer of apply.trailers = all (%s: the patch's "
	"Message-ID; empty: none), as b4's linkmask")
CFG_KEY(apply_maxfiles, "apply.maxfiles", INT, "10000", NULL,
	"a patch changing more files is refused (0: no limit)")
CFG_KEY(apply_maxhunks, "apply.maxhunks", INT, "20000", NULL,
	"a patch with more hunks is refused (0: no limit)")
CFG_KEY(apply_maxbinarysize, "apply.maxbinarysize", SIZE, "64m", NULL,
	"a binary patch whose data inflates beyond this is refused, before "
	"it is inflated whole")

/* checkers */
CFG_KEY(check_enable, "check.enable", LIST, NULL, NULL,
	"checkers to run in addition to the defaults (like -W; lorebot check's "
	"--checkers is applied after it and check.disable)")
CFG_KEY(check_disable, "check.disable", LIST, NULL, NULL,
	"checkers not to run")
CFG_KEY(check_columns, "check.columns", INT, "80", NULL,
	"column limit used by one-line-args (80, or 100: the kernel's other limit)")
CFG_KEY(check_checkpatch, "check.checkpatch", BOOL, "true", NULL,
	"run scripts/checkpatch.pl from the target tree")
CFG_KEY(check_checkpatchflags, "check.checkpatchflags", STRING,
	"--terse --no-summary --mailback --showfile", NULL,
	"flags passed to checkpatch.pl (b4's); -q --terse --showfile "
	"--show-types --no-tree are added and --no-summary and --mailback "
	"dropped, which changes the output, not the checks")
CFG_KEY(check_codespell, "check.codespell", BOOL, "true", NULL,
	"check commit messages for typos with codespell's dictionary")
CFG_KEY(check_color, "check.color", ENUM, "auto", "auto|always|never",
	"colours of lorebot check: auto (a terminal, unless NO_COLOR is set)")

/* builds */
CFG_KEY(build_arch, "build.arch", LIST, NULL, NULL,
	"architectures built, in order (default: x86_64, arm64, riscv); with "
	"build.repair every arch after the first takes the other branch of an "
	"#ifdef whose both branches a series changes")
CFG_KEY(build_profile, "build.profile", STRING, "small", NULL,
	"config profile: small (tinyconfig + mm) or production "
	"(defconfig + mm)")
CFG_KEY(build_jobs, "build.jobs", INT, "2", NULL,
	"make -j")
CFG_KEY(build_timeout, "build.timeout", DURATION, "45m", NULL,
	"wall-clock limit of one build step")
CFG_KEY(build_memory, "build.memory", SIZE, "4g", NULL,
	"address-space limit of each build process")
CFG_KEY(build_processes, "build.processes", INT, "4096", NULL,
	"most processes and threads of the build user at once while a make, "
	"the selftests' make or qemu runs (RLIMIT_NPROC; 0: no limit)")
CFG_KEY(build_logmax, "build.logmax", SIZE, "8m", NULL,
	"build output kept per job")
CFG_KEY(build_ccache, "build.ccache", BOOL, "true", NULL,
	"compile through ccache")
CFG_KEY(build_sparse, "build.sparse", BOOL, "true", NULL,
	"check the .c files a series touches with sparse (make C=2) and "
	"report its new warnings")
CFG_KEY(build_coccicheck, "build.coccicheck", BOOL, "false", NULL,
	"check the .c files a series touches with the tree's Coccinelle rules "
	"(make C=2 CHECK=scripts/coccicheck MODE=report) and report their new "
	"findings: minutes per file and patch, off by default")
CFG_KEY(build_clang, "build.clang", LIST, "x86_64", NULL,
	"arches whose touched .c files are also compiled with clang (make "
	"LLVM=1, in an O= directory of their own) to report clang's new "
	"warnings and errors; empty: none")
CFG_KEY(build_ccachewrite, "build.ccachewrite", ENUM, "base", "base|all",
	"which builds add to the shared ccache: base, only commits of a "
	"git.base branch (a series' build reads it, never writes it); all")
CFG_KEY(build_sandbox, "build.sandbox", BOOL, "true", NULL,
	"sandbox what touches mail or a patched tree: the stages and the fetch pass "
	"in bubblewrap, mail parsed in a jail")
CFG_KEY(build_user, "build.user", STRING, "nobody", NULL,
	"unprivileged user jobs run as when lorebot runs as root")
CFG_KEY(build_keep, "build.keep", INT, "3", NULL,
	"build directories (one per base commit and profile) kept per arch")
CFG_KEY(build_cachesize, "build.cachesize", SIZE, "40g", NULL,
	"disk the build directories of all arches may take: the least recently "
	"used go first (repaired configurations add directories)")
CFG_KEY(build_repair, "build.repair", BOOL, "false", NULL,
	"config repair: turn on (or off) the Kconfig options the changed lines "
	"need, in a build directory of that configuration (built once per base); off until "
	"its cost is measured: each repaired configuration is a kernel build")
CFG_KEY(build_mincoverage, "build.mincoverage", INT, "95", NULL,
	"percent of the changed lines of an arch's code a build must compile "
	"to say ok (else: partial)")
CFG_KEY(build_fragments, "build.fragments", PATH, NULL, NULL,
	"directory of the config fragments (default: config/fragments of "
	"the source tree, else share/lorebot/fragments of the installation, "
	"else /usr/share/lorebot/fragments)")
CFG_SUBKEY(arch_kernelarch, "arch.*.kernelarch", STRING, NULL, NULL,
	"ARCH= for kbuild (x86_64 -> x86_64, arm64, riscv)")
CFG_SUBKEY(arch_crosscompile, "arch.*.crosscompile", STRING, NULL, NULL,
	"CROSS_COMPILE= prefix (aarch64-linux-gnu-, riscv64-linux-gnu-)")
CFG_SUBKEY(arch_image, "arch.*.image", STRING, NULL, NULL,
	"bootable image target (bzImage, Image)")
CFG_SUBKEY(arch_fragment, "arch.*.fragment", LIST, NULL, NULL,
	"extra config fragments for this arch")
CFG_SUBKEY(arch_timeout, "arch.*.timeout", DURATION, NULL, NULL,
	"wall-clock limit of one build step for this arch (default: "
	"build.timeout)")
CFG_SUBKEY(profile_base, "profile.*.base", STRING, NULL, NULL,
	"base configuration target of a profile (tinyconfig, defconfig)")
CFG_SUBKEY(profile_fragment, "profile.*.fragment", LIST, NULL, NULL,
	"config fragments merged into a profile")

/* boots */
CFG_KEY(boot_enable, "boot.enable", BOOL, "true", NULL,
	"boot each kernel in qemu and run the mm kselftests")
CFG_KEY(boot_tests, "boot.tests", LIST, NULL, NULL,
	"kselftests run in the guest (default: the built-in list)")
CFG_KEY(boot_timeout, "boot.timeout", DURATION, "5m", NULL,
	"wall-clock limit of one boot")
CFG_KEY(boot_testtimeout, "boot.testtimeout", DURATION, "60s", NULL,
	"limit of one kselftest inside the guest")
CFG_KEY(boot_memory, "boot.memory", STRING, "1024", NULL,
	"guest memory in MiB")
CFG_KEY(boot_kvm, "boot.kvm", ENUM, "auto", "auto|on|off",
	"use KVM: auto probes whether it really works")
CFG_KEY(boot_smp, "boot.smp", INT, "2", NULL,
	"guest CPUs")
CFG_KEY(boot_confirm, "boot.confirm", INT, "5", NULL,
	"runs that confirm a regression: it fails in all of them on the "
	"tip and on the patch bisection blames, and passes in every run "
	"of the base (at least twice as many); else it is flaky")
CFG_KEY(boot_keepkernels, "boot.keepkernels", INT, "200", NULL,
	"kernel images kept per arch for boots and bisection (least "
	"recently used go first)")
CFG_KEY(boot_hugepages, "boot.hugepages", INT, "32", NULL,
	"huge pages reserved in the guest for the tests (some tests "
	"reserve their own number)")
CFG_KEY(boot_cmdline, "boot.cmdline", STRING, NULL, NULL,
	"added to the guest kernel's command line")

/* replies */
CFG_KEY(reply_mode, "reply.mode", ENUM, "outbox", "off|outbox|smtp",
	"off: no mail; outbox: files in a maildir; smtp: send")
CFG_KEY(reply_outbox, "reply.outbox", PATH, NULL, NULL,
	"maildir for outbox mode (default: <statedir>/outbox)")
CFG_KEY(reply_to, "reply.to", ENUM, "all", "author|all",
	"reply to the author only, or Cc the list and everyone on the patch")
CFG_KEY(reply_maxcc, "reply.maxcc", INT, "100", NULL,
	"a mail with more people on To: and Cc: than this gets a reply to its "
	"sender, the patch's author and the list only (0: no limit)")
CFG_KEY(reply_clean, "reply.clean", BOOL, "false", NULL,
	"also mail when everything passed")
CFG_KEY(reply_rfc, "reply.rfc", BOOL, "false", NULL,
	"reply to RFC series")
CFG_KEY(reply_style, "reply.style", ENUM, "line", "mail|line|off",
	"checkpatch, codespell and series-hygiene findings, and the new build "
	"findings of Coccinelle's style rules: mail them, one line pointing at "
	"the dashboard, or nothing")
CFG_KEY(reply_baseunknown, "reply.baseunknown", ENUM, "review", "off|review|line",
	"a series that does not apply and whose base-commit the tree lacks: "
	"no mail (off); its mm-rule findings with a line saying it was not "
	"built or booted, and no mail without such findings (review); or that "
	"line alone even then (line)")
CFG_KEY(reply_perhour, "reply.perhour", INT, "30", NULL,
	"at most this many replies per hour")
CFG_KEY(reply_perauthor, "reply.perauthor", INT, "5", NULL,
	"at most this many replies per author per hour")
CFG_KEY(reply_ignore, "reply.ignore", LIST, NULL, NULL,
	"addresses (or @domains) never replied to")
CFG_KEY(reply_maintainers, "reply.maintainers", LIST, NULL, NULL,
	"addresses whose answers to lorebot's mails (lorebot: invalid, ignore, "
	"retest) count on any series, besides its author and reviewers")
CFG_KEY(reply_retestinterval, "reply.retestinterval", DURATION, "1h", NULL,
	"a series is tested again on request (lorebot: retest) at most once in "
	"this long")
CFG_KEY(reply_templates, "reply.templates", PATH, NULL, NULL,
	"directory of reply templates (default: the installed templates/)")
CFG_KEY(smtp_url, "smtp.url", STRING, NULL, NULL,
	"smtp://host:587 (STARTTLS) or smtps://host:465")
CFG_KEY(smtp_credentials, "smtp.credentials", PATH, NULL, NULL,
	"file with 'user' and 'password' lines, readable only by its owner")
CFG_KEY(smtp_timeout, "smtp.timeout", DURATION, "60s", NULL,
	"SMTP timeout")
CFG_KEY(reply_attempts, "reply.attempts", INT, "5", NULL,
	"delivery attempts of a reply before it is marked failed")
CFG_KEY(reply_retrydelay, "reply.retrydelay", DURATION, "30s", NULL,
	"wait before retrying a failed delivery; doubled per attempt")
CFG_KEY(reply_backoffmax, "reply.backoffmax", DURATION, "1h", NULL,
	"longest wait between delivery attempts")
CFG_KEY(reply_indoubt, "reply.indoubt", DURATION, "15m", NULL,
	"a reply whose delivery was interrupted (crash) waits this long for the "
	"list archive to show it before it is sent again, same Message-ID")
CFG_KEY(reply_wait, "reply.wait", DURATION, "2m", NULL,
	"how long 'lorebot reply' waits for retries before leaving them queued")
CFG_KEY(smtp_starttls, "smtp.starttls", ENUM, "auto", "auto|always|never",
	"smtp:// only: auto uses STARTTLS when offered (required with "
	"credentials), always requires it, never does not try")
CFG_KEY(smtp_cainfo, "smtp.cainfo", PATH, NULL, NULL,
	"CA certificates the SMTP server is verified with (default: the system's)")
CFG_KEY(smtp_from, "smtp.from", STRING, NULL, NULL,
	"envelope sender (default: core.botaddress)")

/* dashboard */
CFG_KEY(web_listen, "web.listen", STRING, "127.0.0.1:8080", NULL,
	"address the dashboard listens on")
CFG_KEY(web_refresh, "web.refresh", DURATION, "30s", NULL,
	"how often the series list refreshes itself")
CFG_KEY(web_templates, "web.templates", PATH, NULL, NULL,
	"directory of the dashboard page templates (default: the installed "
	"templates/)")
CFG_KEY(web_logroot, "web.logroot", PATH, NULL, NULL,
	"job logs under this directory may be shown on the dashboard "
	"(default: core.statedir)")

/* KernelCI's database (KCIDB v5.3): lorebot export --kcidb, the daemon */
CFG_KEY(kcidb_origin, "kcidb.origin", STRING, "lorebot", NULL,
	"the origin of lorebot's objects and the prefix of their ids "
	"(lowercase letters, digits, _)")
CFG_KEY(kcidb_dir, "kcidb.dir", PATH, NULL, NULL,
	"the daemon writes each version's KCIDB document here when its "
	"pipeline ends (<dir>/<version>.json; empty: none written)")
CFG_KEY(kcidb_url, "kcidb.url", STRING, NULL, NULL,
	"a KCIDB submission URL the daemon POSTs each document to "
	"(empty: none)")
CFG_KEY(kcidb_tokenfile, "kcidb.tokenfile", PATH, NULL, NULL,
	"a file only its owner can read, holding the token sent as "
	"'Authorization: Bearer <token>' with each submission")
CFG_KEY(kcidb_timeout, "kcidb.timeout", DURATION, "30s", NULL,
	"timeout of one submission")

/* patchwork checks */
CFG_KEY(patchwork_url, "patchwork.url", STRING, NULL, NULL,
	"the patchwork instance the daemon posts checks to, e.g. "
	"https://patchwork.kernel.org (empty: none posted)")
CFG_KEY(patchwork_project, "patchwork.project", STRING, NULL, NULL,
	"the project's link name on it (linux-mm)")
CFG_KEY(patchwork_tokenfile, "patchwork.tokenfile", PATH, NULL, NULL,
	"a file only its owner can read, holding the API token of the "
	"account the checks are posted as")
CFG_KEY(patchwork_pending, "patchwork.pending", BOOL, "false", NULL,
	"also post a 'pending' check for each context when the version's "
	"testing starts (then two checks per patch and context)")
CFG_KEY(patchwork_attempts, "patchwork.attempts", INT, "8", NULL,
	"attempts of a check (the patch not in patchwork yet, a server "
	"error) before it is marked failed")
CFG_KEY(patchwork_retrydelay, "patchwork.retrydelay", DURATION, "1m", NULL,
	"wait before retrying a check; doubled per attempt, at most 1h")
CFG_KEY(patchwork_timeout, "patchwork.timeout", DURATION, "30s", NULL,
	"timeout of one request to patchwork")

/* daemon */
CFG_KEY(daemon_builds, "daemon.builds", INT, "1", NULL,
	"kernel builds and boots running at once")
CFG_KEY(daemon_light, "daemon.light", INT, "2", NULL,
	"light jobs (apply, checkers, replies) running at once")
CFG_KEY(daemon_window, "daemon.window", DURATION, "30m", NULL,
	"how long an incomplete series waits for its missing patches")
CFG_KEY(daemon_attempts, "daemon.attempts", INT, "3", NULL,
	"attempts of a job before it is marked failed")
CFG_KEY(daemon_jobtimeout, "daemon.jobtimeout", DURATION, "3h", NULL,
	"wall-clock limit of any one job")
CFG_KEY(daemon_fetchtimeout, "daemon.fetchtimeout", DURATION, "15m", NULL,
	"wall-clock limit of one fetch pass (a child of the daemon)")
CFG_KEY(daemon_maxage, "daemon.maxage", DURATION, "0", NULL,
	"versions sent longer ago than this are not tested (0: any age)")
CFG_KEY(daemon_executor, "daemon.executor", ENUM, "local", "local|slurm",
	"where the stages of slurm.stages run: local (child processes of the "
	"daemon) or slurm (batch jobs on a Slurm cluster)")

/* the Slurm executor (daemon.executor = slurm) */
CFG_KEY(slurm_stages, "slurm.stages", LIST, NULL, NULL,
	"stages submitted to Slurm (default: the heavy ones, build and boot); "
	"replies always run in the daemon")
CFG_KEY(slurm_maxjobs, "slurm.maxjobs", INT, "16", NULL,
	"heavy jobs submitted to Slurm at once (instead of daemon.builds)")
CFG_KEY(slurm_partition, "slurm.partition", STRING, NULL, NULL,
	"sbatch --partition (default: the cluster's default partition)")
CFG_KEY(slurm_account, "slurm.account", STRING, NULL, NULL,
	"sbatch --account")
CFG_KEY(slurm_flags, "slurm.flags", LIST, NULL, NULL,
	"extra sbatch options for every job, one per value (--qos=normal)")
CFG_KEY(slurm_pollinterval, "slurm.pollinterval", DURATION, "2s", NULL,
	"how often squeue is asked about the jobs submitted")
CFG_KEY(slurm_timeout, "slurm.timeout", DURATION, "30s", NULL,
	"wall-clock limit of one sbatch, squeue, scontrol or scancel")
CFG_SUBKEY(slurm_cpus, "slurm.*.cpus", INT, NULL, NULL,
	"CPUs a stage's job asks for (default: build.jobs for build, boot.smp "
	"for boot, else 1)")
CFG_SUBKEY(slurm_mem, "slurm.*.mem", SIZE, NULL, NULL,
	"memory a stage's job asks for (default: none asked)")
CFG_SUBKEY(slurm_time, "slurm.*.time", DURATION, NULL, NULL,
	"Slurm's time limit of a stage's job (default: daemon.jobtimeout + 5m)")
CFG_SUBKEY(slurm_flags, "slurm.*.flags", LIST, NULL, NULL,
	"extra sbatch options of a stage's jobs, after slurm.flags")

#undef CFG_KEY
#undef CFG_SUBKEY
