/*
 * Reading .mat records (nardtools.notation.mat) in C: lines split into cells
 * by tokens, not columns; a game's cells gathered, then handed on.  Every
 * line must be one the reference reads the same way (plain ASCII outside
 * comments, no tabs, no line over 10,000 characters, every cell a known
 * kind); anything else and the file goes to the reference.
 */

#include "mat.h"

#define MAX_LINE 10000     /* the reference reads no longer line (nardtools.notation.source) */

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }
static int is_word(char c) { return ascii_alnum(c) || c == '_'; }

static Span strip(Span x)
{
    while (x.n && is_space(x.p[0])) { x.p++; x.n--; }
    while (x.n && is_space(x.p[x.n - 1])) x.n--;
    return x;
}

/* Case-insensitive: does x start with the lower-case word w? */
static int starts_with(Span x, const char *w)
{
    int n = (int)strlen(w);
    if (x.n < n) return 0;
    for (int i = 0; i < n; i++) if (ascii_lower(x.p[i]) != w[i]) return 0;
    return 1;
}

/* Digits at *i: 1 with the value and *i past them; 0 when there is no
 * digit; -1 when there are more than nine (no number of a record has more:
 * the reference reports them). */
static int parse_uint(const char *p, int n, int *i, int *value)
{
    int j = *i, v = 0;
    if (j >= n || !ascii_digit(p[j])) return 0;
    for (; j < n && ascii_digit(p[j]); j++) {
        if (j - *i >= 9) return -1;
        v = v * 10 + (p[j] - '0');
    }
    *i = j;
    *value = v;
    return 1;
}

/* ------------------------------------------------------------------ tags */

/* One tag starting at p[i] == '[', read exactly as the reference's regular
 * expression reads it: `[`, spaces, a name of 1 to 81 characters (the
 * shortest that works; no `"` or `]`, not starting with a space), spaces, a
 * quoted value, spaces, `]`.  The index after it, or -1 when there is none. */
static int read_tag(const char *p, int n, int i, Span *name, Span *value)
{
    int j = i + 1;
    while (j < n && is_space(p[j])) j++;
    if (j >= n || p[j] == '"' || p[j] == ']') return -1;
    for (int e = j + 1; e <= j + 81 && e < n; e++) {
        if (p[e - 1] == '"' || p[e - 1] == ']') return -1;   /* the name cannot go on */
        if (!is_space(p[e])) continue;
        int k = e;
        while (k < n && is_space(p[k])) k++;
        if (k >= n || p[k] != '"') continue;
        int v = k + 1;
        while (v < n && p[v] != '"') v++;
        if (v >= n) continue;
        int r = v + 1;
        while (r < n && is_space(p[r])) r++;
        if (r >= n || p[r] != ']') continue;
        *name = (Span){p + j, e - j};
        *value = (Span){p + k + 1, v - k - 1};
        return r + 1;
    }
    return -1;
}

/* ------------------------------------------------------------------ lines */

/* Whether data is valid UTF-8 (a file with a BOM that is not is unreadable). */
static int valid_utf8(const unsigned char *p, const unsigned char *end)
{
    while (p < end) {
        unsigned c = *p++;
        int more = c < 0x80 ? 0 : (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 : (c >> 3) == 30 ? 3 : -1;
        if (more < 0 || end - p < more) return 0;
        for (int i = 0; i < more; i++) if ((*p++ >> 6) != 2) return 0;
    }
    return 1;
}

/* The next line from *p, without its line end (\n, \r\n or \r); an overlong
 * line's length is given as MAX_LINE + 1. */
static Span next_line(const char **p, const char *end)
{
    const char *nl = memchr(*p, '\n', (size_t)(end - *p));
    if (!nl) nl = end;
    const char *cr = memchr(*p, '\r', (size_t)(nl - *p));
    if (cr) nl = cr;
    Span line = {*p, nl - *p > MAX_LINE ? MAX_LINE + 1 : (int)(nl - *p)};
    if (nl < end && *nl == '\r') { nl++; if (nl < end && *nl == '\n') nl++; }
    else if (nl < end) nl++;
    *p = nl;
    return line;
}

static int has_word(Span s, const char *w)
{
    int n = (int)strlen(w);
    for (int i = 0; i + n <= s.n; i++)
        if (!memcmp(s.p + i, w, (size_t)n)) return 1;
    return 0;
}

static int is_comment(Span s) { return s.n && (s.p[0] == ';' || s.p[0] == '#'); }

/* The start of the text: after a UTF-8 BOM; NULL when a BOM starts text that
 * is not UTF-8 (the reference cannot read it). */
static const char *text_start(const char *data, size_t size)
{
    if (size >= 3 && !memcmp(data, "\xef\xbb\xbf", 3)) {
        if (!valid_utf8((const unsigned char *)data, (const unsigned char *)data + size)) return NULL;
        return data + 3;
    }
    return data;
}

/* A comment line whose tags the reference reads the same way: printable
 * ASCII (the reference's spaces include more than ASCII's, and it expands tabs). */
static int plain_comment(Span line)
{
    if (!memchr(line.p, '[', (size_t)line.n)) return 1;
    for (int i = 0; i < line.n; i++)
        if ((unsigned char)line.p[i] < 0x20 || (unsigned char)line.p[i] >= 0x7f) return 0;
    return 1;
}

/* `; Set Pos=...` (XG's board edit): the core leaves those to the reference. */
static int set_pos(Span s)
{
    Span body = strip((Span){s.p + 1, s.n - 1});
    if (!starts_with(body, "set")) return 0;
    return starts_with(strip((Span){body.p + 3, body.n - 3}), "pos");
}

int mat_tags(const char *data, size_t size, void (*tag)(void *, Span, Span), void *user)
{
    const char *p = text_start(data, size), *end = data + size;
    if (!p) return 0;
    while (p < end) {
        Span line = next_line(&p, end);
        if (line.n > MAX_LINE) return 0;
        Span s = strip(line);
        if (!is_comment(s) || set_pos(s)) continue;
        if (!plain_comment(s)) return 0;
        for (int i = 0; i < s.n; i++) {
            if (s.p[i] != '[') continue;
            Span name, value;
            int after = read_tag(s.p, s.n, i, &name, &value);
            if (after < 0) continue;
            tag(user, name, value);
            i = after - 1;
        }
    }
    return 1;
}

/* ------------------------------------------------------------------ cells */

/* `name : score   name : score`: the two scores and the names. */
static int score_line(MatFile *f, Span line, int lineno)
{
    int i = 0, c1 = -1, colon1 = -1;
    for (; i < line.n; i++) {
        if (line.p[i] != ':') continue;
        int j = i + 1, v;
        while (j < line.n && is_space(line.p[j])) j++;
        int got = parse_uint(line.p, line.n, &j, &v);
        if (got < 0) DEFER(f, lineno);
        if (got && j < line.n && is_space(line.p[j])) {
            f->game.score[0] = v;
            c1 = j;
            colon1 = i;
            break;
        }
    }
    if (c1 < 0) DEFER(f, lineno);
    int end = line.n;
    while (end > c1 && ascii_digit(line.p[end - 1])) end--;
    if (end == line.n || line.n - end > 9) DEFER(f, lineno);
    int j = end, v;
    if (parse_uint(line.p, line.n, &j, &v) != 1) DEFER(f, lineno);
    int k = end;
    while (k > c1 && is_space(line.p[k - 1])) k--;
    if (k <= c1 || line.p[k - 1] != ':') DEFER(f, lineno);
    f->game.score[1] = v;
    if (!f->named) {   /* the first score line names the players (ratings after a comma dropped) */
        Span n1 = strip((Span){line.p, colon1}), n2 = strip((Span){line.p + c1, k - 1 - c1});
        Span names[2] = {n1, n2};
        for (int q = 0; q < 2; q++) {
            Span n = names[q];
            int comma = n.n;   /* `name,1666` or `name, 1666`: a rating */
            while (comma > 0 && ascii_digit(n.p[comma - 1])) comma--;
            int digits = comma < n.n;
            while (comma > 0 && is_space(n.p[comma - 1])) comma--;
            if (digits && comma > 0 && n.p[comma - 1] == ',') n = strip((Span){n.p, comma - 1});
            int len = n.n < 63 ? n.n : 63;
            memcpy(f->names[q], n.p, (size_t)len);
            f->names[q][len] = 0;
        }
        f->named = 1;
    }
    return 1;
}

/* Whether a cell starts at i: dice `64:` or a cube or result word, after a space. */
static int cell_start(Span body, int i)
{
    if (i > 0 && !is_space(body.p[i - 1])) return 0;
    char c = body.p[i];
    if (c >= '1' && c <= '6')
        return i + 2 < body.n && body.p[i + 1] >= '1' && body.p[i + 1] <= '6' && body.p[i + 2] == ':';
    if (!ascii_alpha(c)) return 0;
    static const char *words[] = {"doubles", "beavers", "raccoons", "takes", "drops", "passes", "wins", "losses",
                                  "resigns"};
    Span rest = {body.p + i, body.n - i};
    for (size_t w = 0; w < sizeof words / sizeof *words; w++) {
        int n = (int)strlen(words[w]);
        if (starts_with(rest, words[w]) && (n == rest.n || !is_word(rest.p[n]))) return 1;
    }
    return 0;
}

/* `and the match`, words apart by any spaces. */
static int and_the_match(Span x)
{
    static const char *words[] = {"and", "the", "match"};
    for (int w = 0; w < 3; w++) {
        int n = (int)strlen(words[w]);
        if (!starts_with(x, words[w]) || (x.n > n && !is_space(x.p[n])) || (w < 2 && x.n == n)) return 0;
        x = strip((Span){x.p + n, x.n - n});
    }
    return x.n == 0;
}

static int add_act(MatFile *f, Act a)
{
    if (f->game.nacts == MAX_ACTS) return 0;
    f->game.acts[f->game.nacts++] = a;
    return 1;
}

/* One cell into an action; 0 when the reference must read the file. */
static int cell(MatFile *f, Span text, int player, int number, int lineno)
{
    Act a = {.player = player, .number = number, .line = lineno};
    if (text.n >= 3 && text.p[0] >= '1' && text.p[0] <= '6' && text.p[1] >= '1' && text.p[1] <= '6' && text.p[2] == ':') {
        a.d1 = text.p[0] - '0';
        a.d2 = text.p[1] - '0';
        Span play = strip((Span){text.p + 3, text.n - 3});
        if (play.n && play.p[0] == '?') {
            a.kind = A_ROLL_RESIGN;
            if (!add_act(f, a)) DEFER(f, lineno);
            return 1;
        }
        if (starts_with(play, "illegal")) DEFER(f, lineno);   /* Snowie's board edits: the reference */
        if (starts_with(play, "cannot move") && play.n == 11) play.n = 0;
        a.kind = A_ROLL;
        a.play = play;
        if (!add_act(f, a)) DEFER(f, lineno);
        return 1;
    }
    int beaver = starts_with(text, "beavers") || starts_with(text, "raccoons");
    if (starts_with(text, "doubles") || beaver) {
        int i = beaver && ascii_lower(text.p[0]) == 'r' ? 8 : 7, v;
        while (i < text.n && is_space(text.p[i])) i++;
        if (i + 1 >= text.n || text.p[i] != '=' || text.p[i + 1] != '>') DEFER(f, lineno);
        i += 2;
        while (i < text.n && is_space(text.p[i])) i++;
        if (parse_uint(text.p, text.n, &i, &v) != 1 || i != text.n) DEFER(f, lineno);
        a.kind = beaver ? A_BEAVER : A_DOUBLE;
        a.value = v;
        if (!add_act(f, a)) DEFER(f, lineno);
        return 1;
    }
    if (starts_with(text, "takes") && text.n == 5) {
        a.kind = A_TAKE;
        if (!add_act(f, a)) DEFER(f, lineno);
        return 1;
    }
    if ((starts_with(text, "drops") && text.n == 5) || (starts_with(text, "passes") && text.n == 6)) {
        a.kind = A_DROP;
        if (!add_act(f, a)) DEFER(f, lineno);
        return 1;
    }
    int loss = starts_with(text, "losses");
    if (starts_with(text, "wins") || loss) {
        int i = loss ? 6 : 4, v;
        if (i >= text.n || !is_space(text.p[i])) DEFER(f, lineno);
        while (i < text.n && is_space(text.p[i])) i++;
        if (parse_uint(text.p, text.n, &i, &v) != 1) DEFER(f, lineno);
        if (i >= text.n || !is_space(text.p[i])) DEFER(f, lineno);
        while (i < text.n && is_space(text.p[i])) i++;
        Span rest = {text.p + i, text.n - i};
        if (!starts_with(rest, "point")) DEFER(f, lineno);
        int w = rest.n > 5 && ascii_lower(rest.p[5]) == 's' ? 6 : 5;
        if (rest.n > w && is_word(rest.p[w])) DEFER(f, lineno);
        Span tail = strip((Span){rest.p + w, rest.n - w});
        if (tail.n && !and_the_match(tail)) DEFER(f, lineno);
        a.kind = loss ? A_LOSE : A_WIN;   /* a loss is read, then set aside (it still makes a game not empty) */
        a.value = v;
        if (!add_act(f, a)) DEFER(f, lineno);
        return 1;
    }
    DEFER(f, lineno);   /* "Resigns" and anything else: the reference */
}

static int move_line(MatFile *f, Span line, int lineno)
{
    int i = 0, number = 0, numbered = 0;
    while (i < line.n && is_space(line.p[i])) i++;
    int j = i, v, got = parse_uint(line.p, line.n, &j, &v);
    if (got < 0) DEFER(f, lineno);
    if (got && j < line.n && line.p[j] == ')') numbered = 1, number = v, i = j + 1;
    else i = 0;
    int body_start = i;
    Span body = line;
    int starts[4], ends[4], n = 0;
    for (int c = body_start; c < body.n;) {   /* word by word (printable ASCII: a space is ' '); a cell starts at one */
        if (body.p[c] == ' ') { c++; continue; }
        int w = c;
        while (c < body.n && body.p[c] != ' ') c++;
        if (w > 0 && body.p[w - 1] != ' ') {   /* right after the move number's `)` */
            if (!n) DEFER(f, lineno);
        } else if (cell_start(body, w)) {
            if (n == 4) DEFER(f, lineno);
            starts[n++] = w;
        } else if (!n) {
            DEFER(f, lineno);   /* text before the first cell */
        } else if (w > 0 && ascii_digit(body.p[w])) {
            /* a move number repeated inside the line (`12)`): the reference blanks it */
            int q = w;
            while (q < body.n && ascii_digit(body.p[q])) q++;
            if (q < body.n && body.p[q] == ')' && (q + 1 == body.n || is_space(body.p[q + 1]))) DEFER(f, lineno);
        }
        ends[n - 1] = c;   /* a cell ends at its last word */
    }
    if (n == 0) return 1;   /* a bare move number */
    for (int c = 0; c < n; c++) {
        int player;
        if (c == 0 && n >= 2) player = 0;
        else if (c == 1) player = 1;
        else if (c == 2) {   /* a third slot (Galaxy): whoever did not lose */
            Span first = {body.p + starts[0], ends[0] - starts[0]};
            Span second = {body.p + starts[1], ends[1] - starts[1]};
            player = starts_with(first, "losses") ? 1 : starts_with(second, "losses") ? 0 : 1;
        }
        else if (numbered) player = starts[c] - body_start >= 8 ? 1 : 0;
        else player = starts[c] >= 20 ? 1 : 0;
        if (!cell(f, (Span){body.p + starts[c], ends[c] - starts[c]}, player, number, lineno)) return 0;
    }
    return 1;
}

static int end_game(MatFile *f)
{
    if (!f->have_game) return 1;
    if (f->expect_score) DEFER(f, f->game.line);   /* no score line */
    f->have_game = 0;
    return f->on_game(f, &f->game);
}

int mat_read(const char *data, size_t size, MatFile *f)
{
    const char *p = text_start(data, size), *end = data + size;
    if (!p) DEFER(f, 1);
    int lineno = 0, first = 1;
    while (p < end) {
        Span line = next_line(&p, end);
        lineno++;
        if (line.n > MAX_LINE) DEFER(f, lineno);
        Span s = strip(line);
        if (!s.n) continue;
        line.n = (int)(s.p - line.p) + s.n;   /* right-stripped, as the reference reads it */
        if (first && s.p[0] == '[') DEFER(f, lineno);   /* a native record */
        first = 0;
        if (is_comment(s)) {
            if (set_pos(s)) DEFER(f, lineno);   /* a board edit: the reference */
            if (has_word(s, "AutoDoubles")) DEFER(f, lineno);   /* a game's automatic doubles: the reference */
            continue;
        }
        unsigned char unprintable = 0;   /* printable ASCII: columns are characters, spaces as the reference's */
        for (int i = 0; i < line.n; i++) unprintable |= (unsigned char)(line.p[i] - 0x20) > 0x5e;
        if (unprintable) DEFER(f, lineno);
        if (!f->header) {
            int i = 0, v;
            if (lineno > 200 || parse_uint(s.p, s.n, &i, &v) != 1) DEFER(f, lineno);
            Span rest = strip((Span){s.p + i, s.n - i});
            if (i == s.n || !is_space(s.p[i]) || !starts_with(rest, "point") || rest.n < 6 || !is_space(rest.p[5]))
                DEFER(f, lineno);
            rest = strip((Span){rest.p + 5, rest.n - 5});
            if (!starts_with(rest, "match") || (rest.n > 5 && is_word(rest.p[5]))) DEFER(f, lineno);
            f->length = v;
            f->header = 1;
            continue;
        }
        if (starts_with(s, "game") && s.n > 4 && is_space(s.p[4])) {
            int i = 4, v;
            while (i < s.n && is_space(s.p[i])) i++;
            if (parse_uint(s.p, s.n, &i, &v) != 1 || i != s.n) DEFER(f, lineno);
            if (!end_game(f)) return 0;
            f->have_game = 1;
            f->expect_score = 1;
            f->game.number = v;
            f->game.line = lineno;
            f->game.nacts = 0;
            f->game.score[0] = f->game.score[1] = 0;
            continue;
        }
        if (!f->have_game) DEFER(f, lineno);
        if (f->expect_score) {
            f->expect_score = 0;
            if (!score_line(f, s, lineno)) return 0;
            continue;
        }
        if (!move_line(f, line, lineno)) return 0;
    }
    if (!f->header) DEFER(f, lineno);
    return end_game(f);
}
