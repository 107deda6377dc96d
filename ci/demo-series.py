#!/usr/bin/env python3
# The demo series as git send-email would post it: a cover letter naming
# the base (base-commit:) and one mail per patch file, threaded under it,
# written as OUTDIR/0000.eml, 0001.eml...  Used by ci/demo.sh and by the
# tests that run the demo's series (t0915).
#
#	demo-series.py OUTDIR BASE PATCH...
import email.utils, re, sys, time
out, base, patches = sys.argv[1], sys.argv[2], sys.argv[3:]
stamp = int(time.time())
total = len(patches)
cover = f"<cover.{stamp}.git.test@lorebot.invalid>"
date = email.utils.formatdate(stamp, localtime=False)
# the fixture patches are signed off by this author
head = (f"From: lorebot test <test@lorebot.invalid>\nTo: linux-mm@kvack.org\n"
        f"Date: {date}\n")
mails = [head + f"Subject: [PATCH 0/{total}] lorebot demo: a warning at boot, "
         f"a warning on arm64\nMessage-ID: {cover}\n\n"
         "Two patches for the 6.12 stand-in of mm-new: the first makes\n"
         "MADV_POPULATE_(READ|WRITE) warn (the mm kselftests run into it on\n"
         "every arch), the second adds a variable only arm64 compiles and\n"
         "never uses.\n\n"
         f"base-commit: {base}\n-- \n2.39.5\n"]
for n, path in enumerate(patches, 1):
    text = open(path).read()
    hdr, body = text.split("\n\n", 1)
    subject = re.search(r"^Subject: \[PATCH[^\]]*\] (.*)$", hdr, re.M).group(1)
    mails.append(head + f"Subject: [PATCH {n}/{total}] {subject}\n"
                 f"Message-ID: <{stamp}-{n}.git.test@lorebot.invalid>\n"
                 f"In-Reply-To: {cover}\nReferences: {cover}\n\n" + body)
for i, m in enumerate(mails):
    open(f"{out}/{i:04d}.eml", "w").write(m)
