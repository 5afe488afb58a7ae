/* meshoptimizer's sources use a few <math.h> functions that the meshopt
 * crate's own stripped-down headers for wasm32 (include_wasm32) do not
 * declare; Rust's compiler-builtins defines them for wasm32-unknown-unknown.
 * tools/web-build.sh includes this header in every C file it compiles. */
#ifdef __cplusplus
extern "C" {
#endif
float floorf(float);
float ceilf(float);
float cosf(float);
float log2f(float);
float frexpf(float, int *);
float ldexpf(float, int);
#ifdef __cplusplus
}
#endif
