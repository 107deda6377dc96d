#!/usr/bin/env python3
# A patch series against the mm-new stand-in, as git send-email posts it,
# made without a checkout (tests need many, and checking out the kernel
# tree takes a minute): each patch appends a comment to one mm/ file, so
# every series applies to mm-new and builds.
#
#	gen-series.py --repo MM.git --name NAME [--version V] [--patches N]
#	              [--date UNIX] (--mbox FILE | --dir DIR)
#
# --mbox writes one mboxrd file, --dir one file per mail (NN.patch) as
# deliver_dir expects.  Message-IDs are <DATE.NAME-vV-K@lorebot.invalid>.
import argparse
import email.utils
import os
import subprocess

FILES = ["mm/madvise.c", "mm/mremap.c", "mm/mprotect.c", "mm/mlock.c",
         "mm/msync.c", "mm/mincore.c", "mm/fadvise.c", "mm/readahead.c"]


def git(repo, *args):
    return subprocess.run(["git", "--git-dir", repo] + list(args), check=True,
                          capture_output=True).stdout.decode()


def patch_for(repo, path, tag):
    lines = git(repo, "show", "mm-new:" + path).splitlines()
    n = len(lines)
    ctx = lines[-3:]
    body = ["diff --git a/%s b/%s" % (path, path),
            "--- a/%s" % path, "+++ b/%s" % path,
            "@@ -%d,3 +%d,5 @@ " % (n - 2, n - 2)]
    body += [" " + l if l else " " for l in ctx]
    body += ["+", "+/* %s */" % tag]
    return "\n".join(body) + "\n"


def mail(msgid, subject, date, body, parent=None, refs=None):
    h = ["From: lorebot test <test@lorebot.invalid>",
         "To: linux-mm@kvack.org",
         "Subject: " + subject,
         "Date: " + email.utils.formatdate(date),
         "Message-ID: <%s>" % msgid]
    if parent:
        h.append("In-Reply-To: <%s>" % parent)
        h.append("References: " + " ".join("<%s>" % r for r in refs))
    h += ["MIME-Version: 1.0", "Content-Type: text/plain; charset=UTF-8",
          "Content-Transfer-Encoding: 8bit", "X-Mailer: git-send-email 2.39.5"]
    return "\n".join(h) + "\n\n" + body


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repo", required=True)
    ap.add_argument("--name", required=True)
    ap.add_argument("--version", type=int, default=1)
    ap.add_argument("--patches", type=int, default=2)
    ap.add_argument("--date", type=int, default=1767225600)
    ap.add_argument("--mbox")
    ap.add_argument("--dir")
    a = ap.parse_args()
    base = git(a.repo, "rev-parse", "mm-new").strip()
    v = "" if a.version == 1 else " v%d" % a.version
    k = a.patches
    ids = ["%d.%s-v%d-%d@lorebot.invalid" % (a.date, a.name, a.version, i)
           for i in range(k + 1)]
    title = "mm: the %s series" % a.name
    mails = [mail(ids[0], "[PATCH%s 0/%d] %s" % (v, k, title), a.date,
                  "A few comments in mm/.\n\nbase-commit: %s\n-- \n2.39.5\n" % base)]
    for i in range(1, k + 1):
        path = FILES[(i - 1) % len(FILES)]
        tag = "%s v%d patch %d" % (a.name, a.version, i)
        body = ("Note the %s.\n\nSigned-off-by: lorebot test <test@lorebot.invalid>\n"
                "---\n %s | 2 ++\n 1 file changed, 2 insertions(+)\n\n%s-- \n2.39.5\n"
                % (tag, path, patch_for(a.repo, path, tag)))
        mails.append(mail(ids[i], "[PATCH%s %d/%d] %s: note %d" %
                          (v, i, k, path.split("/")[1].split(".")[0], i),
                          a.date + i, body, ids[0], [ids[0]]))
    if a.mbox:
        with open(a.mbox, "a") as f:
            for m in mails:
                f.write("From mboxrd@z Thu Jan  1 00:00:00 1970\n")
                for line in m.splitlines():
                    if line.lstrip(">").startswith("From "):
                        line = ">" + line
                    f.write(line + "\n")
                f.write("\n")
    if a.dir:
        os.makedirs(a.dir, exist_ok=True)
        for i, m in enumerate(mails):
            with open(os.path.join(a.dir, "%04d.patch" % i), "w") as f:
                f.write(m)


main()
