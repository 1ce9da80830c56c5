/* The networks' forward pass: the encoding of nardtools.analysis.nets
 * (encode, encode_race) written as the few inputs that are not zero, so that
 * the first layer adds only their rows of w1 (a position sets some thirty of
 * its 198 inputs), then the sigmoid hidden units and the sigmoid outputs.
 * In float32, as the numpy reference: the two differ by the order of their
 * sums and exp's last bits (the differential test holds 1e-6). */

#include "net.h"

/* The inputs of one board that are not zero, as (index, value) pairs. */
static int sparse_inputs(const signed char *board, int race, int *index, float *value)
{
    int n = 0;
    for (int side = 0; side < 2; side++) {
        const signed char *c = board + 26 * side;
        long pips = 0;
        for (int p = 1; p <= 24; p++) {
            int k = c[p], base = side * 96 + (p - 1) * 4;
            pips += (long)k * p;
            if (k >= 1) { index[n] = base; value[n++] = 1.0f; }
            if (k >= 2) { index[n] = base + 1; value[n++] = 1.0f; }
            if (k >= 3) { index[n] = base + 2; value[n++] = 1.0f; }
            if (k > 3) { index[n] = base + 3; value[n++] = (float)(k - 3) / 2.0f; }
        }
        pips += (long)c[25] * 25;
        if (c[25]) { index[n] = 192 + side; value[n++] = (float)c[25] / 2.0f; }
        if (c[0]) { index[n] = 194 + side; value[n++] = (float)c[0] / 15.0f; }
        if (pips) { index[n] = 196 + side; value[n++] = (float)pips / 100.0f; }
        if (race)
            for (int k = 1; k <= 15 && k <= c[0]; k++) { index[n] = NET_INPUTS + side * 15 + k - 1; value[n++] = 1.0f; }
    }
    return n;
}

/* The logistic function of z clipped to [-40, 40], as the reference's, in
 * float: exp by Cephes' method (2^n times a polynomial in the remainder),
 * written without calls so that the compiler vectorises the loops over the
 * hidden units (setup.py's -fno-trapping-math lets it if-convert the clip);
 * within 2 ulp of expf. */
static inline float sigmoid(float z)
{
    float x = -z;
    x = x < -40.0f ? -40.0f : x;
    x = x > 40.0f ? 40.0f : x;
    const float shift = 12582912.0f;                     /* 1.5 * 2^23: rounds to the nearest integer */
    float n = (x * 1.44269504088896341f + shift) - shift;
    float r = x - n * 0.693359375f + n * 2.12194440e-4f;
    float p = ((((1.9875691500e-4f * r + 1.3981999507e-3f) * r + 8.3334519073e-3f) * r + 4.1665795894e-2f) * r
               + 1.6666665459e-1f) * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.0f;
    union { float f; int i; } scale = {.i = ((int)n + 127) << 23};
    return 1.0f / (1.0f + p * scale.f);
}

/* On x86-64 with GCC, a version for AVX2 beside the baseline's SSE2, chosen
 * when the module loads: the same operations in the same order, twice as
 * many lanes, so the same results. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
__attribute__((target_clones("avx2", "default")))
#endif
void net_forward(const Net *net, const signed char *boards, long long rows, float *out, float *h)
{
    int index[NET_RACE_INPUTS];
    float value[NET_RACE_INPUTS];
    const int hidden = net->hidden, outputs = net->outputs, race = net->inputs == NET_RACE_INPUTS;
    for (long long r = 0; r < rows; r++) {
        int n = sparse_inputs(boards + 52 * r, race, index, value);
        for (int j = 0; j < hidden; j++) h[j] = net->b1[j];
        for (int i = 0; i < n; i++) {
            const float *w = net->w1 + (long long)index[i] * hidden;
            const float v = value[i];
            for (int j = 0; j < hidden; j++) h[j] += v * w[j];
        }
        for (int j = 0; j < hidden; j++) h[j] = sigmoid(h[j]);
        float z[NET_MAX_OUTPUTS];
        for (int k = 0; k < NET_MAX_OUTPUTS; k++) z[k] = net->b2[k];
        for (int j = 0; j < hidden; j++) {
            const float *w = net->w2 + (long long)j * NET_MAX_OUTPUTS;
            for (int k = 0; k < NET_MAX_OUTPUTS; k++) z[k] += h[j] * w[k];
        }
        for (int k = 0; k < outputs; k++) out[r * outputs + k] = sigmoid(z[k]);
    }
}
