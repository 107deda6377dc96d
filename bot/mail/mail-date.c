// SPDX-License-Identifier: GPL-2.0
/* Dates as mail writes them, without GMime: the common form, and output */
#include <ctype.h>
#include <time.h>

#include "bot/mail/mail.h"

/*
 * Seconds since the epoch of a UTC date (mon 0-11), as timegm() without
 * its cost: days from civil, H. Hinnant's algorithm.
 */
static time_t civil_to_unix(int y, int mon, int d, int hh, int mm, int ss)
{
	int m = mon + 1, era, yoe, doy, doe;

	y -= m <= 2;
	era = y / 400;		/* y >= 1969 here: no negative years */
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return ((time_t)era * 146097 + doe - 719468) * 86400 +
		hh * 3600 + mm * 60 + ss;
}

/* Blanks, then 1..max digits */
static bool date_num(const char **pp, int max, int *v)
{
	const char *p = *pp;
	int n = 0;

	while (*p == ' ')
		p++;
	for (*v = 0; n < max && isdigit((unsigned char)p[n]); n++)
		*v = *v * 10 + (p[n] - '0');
	*pp = p + n;
	return n > 0;
}

/* At least one blank, as sscanf's " " between fields */
static bool date_blank(const char **pp)
{
	if (**pp != ' ')
		return false;
	while (**pp == ' ')
		(*pp)++;
	return true;
}

/*
 * "Mon, 6 May 2024 10:00:00 +0000", the form git send-email and most
 * mailers write; anything else is GMime's (obsolete zones, missing
 * seconds, two-digit years, the broken forms).
 */
bool mail_strict_date(const char *s, int64_t *t, int *tz)
{
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	int day, year, hh, mm, ss, off, mon, n = 0;
	char mname[4], sign;
	const char *p = s;
	time_t r;

	if (strlen(s) > 64)
		return false;
	if (p[0] && p[1] && p[2] && p[3] == ',')
		p += 4;
	/* " %2d %3s %4d %2d:%2d:%2d %c%4d", without sscanf's cost */
	if (!date_num(&p, 2, &day) || !date_blank(&p))
		return false;
	for (n = 0; n < 3 && p[n] && p[n] != ' '; n++)
		mname[n] = p[n];
	if (n != 3 || p[3] != ' ')
		return false;
	p += 3;
	if (!date_num(&p, 4, &year) || !date_blank(&p) ||
	    !date_num(&p, 2, &hh) || *p++ != ':' ||
	    !date_num(&p, 2, &mm) || *p++ != ':' ||
	    !date_num(&p, 2, &ss) || !date_blank(&p))
		return false;
	sign = *p++;
	if ((sign != '+' && sign != '-') || !isdigit((unsigned char)*p) ||
	    !date_num(&p, 4, &off))
		return false;
	while (*p == ' ')
		p++;
	if (*p && *p != '(')
		return false;
	mname[3] = '\0';
	for (mon = 0; mon < 12; mon++)
		if (!memcmp(months + 3 * mon, mname, 3))
			break;
	if (mon == 12 || day < 1 || day > 31 || year < 1970 || hh > 23 ||
	    mm > 59 || ss > 60 || off > 1459 || off % 100 > 59)
		return false;
	r = civil_to_unix(year, mon, day, hh, mm, ss);
	*tz = (off / 100 * 60 + off % 100) * (sign == '-' ? -1 : 1);
	*t = (int64_t)r - (int64_t)*tz * 60;
	return true;
}

void mail_format_date(int64_t t, int tz, struct strbuf *sb)
{
	static const char *const days[] = { "Sun", "Mon", "Tue", "Wed", "Thu",
					     "Fri", "Sat" };
	static const char *const months[] = { "Jan", "Feb", "Mar", "Apr", "May",
					       "Jun", "Jul", "Aug", "Sep", "Oct",
					       "Nov", "Dec" };
	time_t local = (time_t)(t + (int64_t)tz * 60);
	struct tm tm;
	int off = tz < 0 ? -tz : tz;

	gmtime_r(&local, &tm);
	strbuf_addf(sb, "%s, %d %s %d %02d:%02d:%02d %c%02d%02d",
		    days[tm.tm_wday], tm.tm_mday, months[tm.tm_mon],
		    tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec,
		    tz < 0 ? '-' : '+', off / 60, off % 60);
}
