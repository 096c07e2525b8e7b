/* nvcc 13.0 drops a statement (cuda_notes 62): inside a generic lambda, the statement that follows
 * `if constexpr (...) { ... } else for (...) { ... }` (the else braceless, its branch discarded) is not compiled.
 * Not built by CMake; check by hand (expects 2 stores of o[999], one per instantiation of the body):
 *   nvcc -O3 -arch=sm_90 -std=c++17 -ptx nvcc_else_for_repro.cu -o r.ptx && grep -c '+3996\]' r.ptx
 * nvcc 13.0.88 prints 0 (the store is gone; a __syncthreads() there goes the same way, which was item 61's race).
 * With braces around the else branch, or with the body as a __device__ function template, it prints 2. */
template <bool B>
struct BoolC {
    static constexpr bool value = B;
};
template <int D>
__global__ void k_repro(const float *__restrict__ x, float *o, int n) {
    __shared__ float s[1000];
    const int tid = threadIdx.x, nt = blockDim.x;
    auto body = [&](auto c) -> double {
        constexpr bool INNER = decltype(c)::value;
        if constexpr (D == 2) {
            int lx = tid % 37;
            for (int q = tid; q < 1000; q += 256) {
                float v = 0.0f;
                if (INNER || lx < n) v = x[q];
                s[q] = v;
                lx += 256 % 37;
                if (lx >= 37) lx -= 37;
            }
        } else
        for (int q = tid; q < 1000; q += nt) {
            s[q] = x[q] * 2.0f;
        }
        o[999] = 1.0f; /* lost */
        __syncthreads();
        double acc = 0.0;
        for (int q = tid; q < 1000; q += nt) {
            o[q] = s[q];
            acc += s[q];
        }
        return acc;
    };
    const double acc = blockIdx.x > 0 ? body(BoolC<true>{}) : body(BoolC<false>{});
    if (tid == 0) o[0] = (float)acc;
}
template __global__ void k_repro<2>(const float *__restrict__, float *, int);
