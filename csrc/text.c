/*
 * A play's canonical text (nardtools.play.Play.__str__): moves by
 * descending source, one checker's steps joined (24/18/13) unless it hit on
 * the way, hits marked *, repeats (2); a double's intermediate points left
 * out unless a hit or the start of a bear-off is there.
 */

#include <stdio.h>
#include "core.h"

static int point_text(char *out, int p)
{
    if (p == BAR) return sprintf(out, "bar");
    if (p == OFF) return sprintf(out, "off");
    return sprintf(out, "%d", p);
}

typedef struct { Step steps[MAX_DICE]; int n; } Chain;

static int chain_text(const Chain *c, int dbl, char *out)
{
    int k = point_text(out, c->steps[0].s);
    for (int i = 0; i < c->n; i++) {
        const Step *s = &c->steps[i];
        int last = i == c->n - 1, before_off = i == c->n - 2 && c->steps[c->n - 1].t == OFF;
        if (s->hit || last || before_off || !dbl) {
            out[k++] = '/';
            k += point_text(out + k, s->t);
            if (s->hit) out[k++] = '*';
        }
    }
    out[k] = 0;
    return k;
}

int play_text(const Step *steps, int n, char *out)
{
    Step ordered[MAX_DICE];
    int hit_points[26] = {0};
    for (int i = 0; i < n; i++) if (steps[i].hit) hit_points[steps[i].t] = 1;
    memcpy(ordered, steps, sizeof(Step) * (size_t)n);
    for (int i = 1; i < n; i++)   /* a stable sort by (source, target), descending */
        for (int j = i; j > 0 && (ordered[j - 1].s < ordered[j].s
                                  || (ordered[j - 1].s == ordered[j].s && ordered[j - 1].t < ordered[j].t)); j--) {
            Step x = ordered[j]; ordered[j] = ordered[j - 1]; ordered[j - 1] = x;
        }
    for (int i = 0; i < n; i++) {   /* the first step onto a hit point gets the '*' */
        ordered[i].hit = (signed char)hit_points[ordered[i].t];
        hit_points[ordered[i].t] = 0;
    }
    Chain chains[MAX_DICE];
    int nchains = 0;
    for (int i = 0; i < n; i++) {
        int joined = 0;
        for (int c = 0; c < nchains && !joined; c++) {
            const Step *last = &chains[c].steps[chains[c].n - 1];
            if (last->t == ordered[i].s && !last->hit && last->t != OFF) {
                chains[c].steps[chains[c].n++] = ordered[i];
                joined = 1;
            }
        }
        if (!joined) {
            chains[nchains].n = 1;
            chains[nchains++].steps[0] = ordered[i];
        }
    }
    int dbl = n > 2 || (n == 2 && steps[0].s - steps[0].t == steps[1].s - steps[1].t);
    for (int i = 1; i < nchains; i++)   /* a stable sort by (first source, last target), descending */
        for (int j = i; j > 0; j--) {
            const Chain *a = &chains[j - 1], *b = &chains[j];
            int as = a->steps[0].s, at = a->steps[a->n - 1].t, bs = b->steps[0].s, bt = b->steps[b->n - 1].t;
            if (!(as < bs || (as == bs && at < bt))) break;
            Chain x = chains[j]; chains[j] = chains[j - 1]; chains[j - 1] = x;
        }
    int k = 0;
    char prev[64] = "", text[64];
    int count = 0;
    for (int c = 0; c <= nchains; c++) {
        int len = c < nchains ? chain_text(&chains[c], dbl, text) : 0;
        if (c < nchains && count && !strcmp(text, prev)) { count++; continue; }
        if (count) {   /* write out the group before */
            if (k) out[k++] = ' ';
            memcpy(out + k, prev, strlen(prev));
            k += (int)strlen(prev);
            if (count > 1) k += sprintf(out + k, "(%d)", count);
        }
        if (c < nchains) {
            memcpy(prev, text, (size_t)len + 1);
            count = 1;
        }
    }
    out[k] = 0;
    return k;
}
