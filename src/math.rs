//! The transcendental functions x3dbake's output depends on, the same on
//! every target: std's call the platform's C library (glibc on Linux, a
//! port of musl's in WebAssembly), whose last bits differ, and the page
//! must write the bytes the command line writes. These are the `libm`
//! crate's (musl's, in Rust) everywhere; glam uses it too (its `libm`
//! feature). `sqrt` needs none: IEEE 754 rounds it exactly everywhere.

/// A float type with libm's functions.
pub trait Float: Copy {
    fn sin_(self) -> Self;
    fn cos_(self) -> Self;
    fn acos_(self) -> Self;
    fn atan2_(self, x: Self) -> Self;
    fn exp_(self) -> Self;
    fn ln_(self) -> Self;
    fn log10_(self) -> Self;
    fn powf_(self, e: Self) -> Self;
}

impl Float for f64 {
    fn sin_(self) -> Self {
        libm::sin(self)
    }
    fn cos_(self) -> Self {
        libm::cos(self)
    }
    fn acos_(self) -> Self {
        libm::acos(self)
    }
    fn atan2_(self, x: Self) -> Self {
        libm::atan2(self, x)
    }
    fn exp_(self) -> Self {
        libm::exp(self)
    }
    fn ln_(self) -> Self {
        libm::log(self)
    }
    fn log10_(self) -> Self {
        libm::log10(self)
    }
    fn powf_(self, e: Self) -> Self {
        libm::pow(self, e)
    }
}

impl Float for f32 {
    fn sin_(self) -> Self {
        libm::sinf(self)
    }
    fn cos_(self) -> Self {
        libm::cosf(self)
    }
    fn acos_(self) -> Self {
        libm::acosf(self)
    }
    fn atan2_(self, x: Self) -> Self {
        libm::atan2f(self, x)
    }
    fn exp_(self) -> Self {
        libm::expf(self)
    }
    fn ln_(self) -> Self {
        libm::logf(self)
    }
    fn log10_(self) -> Self {
        libm::log10f(self)
    }
    fn powf_(self, e: Self) -> Self {
        libm::powf(self, e)
    }
}

/// sin x.
pub fn sin<T: Float>(x: T) -> T {
    x.sin_()
}
/// cos x.
pub fn cos<T: Float>(x: T) -> T {
    x.cos_()
}
/// (sin x, cos x).
pub fn sin_cos<T: Float>(x: T) -> (T, T) {
    (x.sin_(), x.cos_())
}
/// acos x.
pub fn acos<T: Float>(x: T) -> T {
    x.acos_()
}
/// atan2(y, x).
pub fn atan2<T: Float>(y: T, x: T) -> T {
    y.atan2_(x)
}
/// eˣ.
pub fn exp<T: Float>(x: T) -> T {
    x.exp_()
}
/// ln x.
pub fn ln<T: Float>(x: T) -> T {
    x.ln_()
}
/// log₁₀ x.
pub fn log10<T: Float>(x: T) -> T {
    x.log10_()
}
/// xᵉ.
pub fn powf<T: Float>(x: T, e: T) -> T {
    x.powf_(e)
}
