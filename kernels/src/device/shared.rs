//! Shared memory: the on-chip scratchpad a block's threads share (CUDA's `__shared__`).
//!
//! Rust has no address-space qualifiers, so a shared array is declared in module-level PTX
//! (`global_asm!`) and reached by its address in the 32-bit shared window, which
//! `mov.u32 %r, NAME;` yields. [`SharedArray`] wraps that address; its loads and stores are
//! the explicit `ld.shared`/`st.shared` instructions, which become `LDS`/`STS` in SASS.
//!
//! Two kinds, as in CUDA:
//! - **static**, sized at compile time: [`static_shared!`](crate::static_shared) declares
//!   `.shared .align 16 .b8 NAME[BYTES];` and a function returning its `SharedArray`;
//! - **dynamic**, sized at launch (the launch's `sharedMemBytes`): [`dynamic_shared`]
//!   returns the one `.extern .shared` array every kernel may use.
//!
//! The accessors are not marked pure: each load and store stays where it is written,
//! relative to the others and to barriers, which is what code that communicates through
//! shared memory needs (the `volatile` of the classic CUDA reductions).

use core::arch::{asm, global_asm};
use core::marker::PhantomData;

/// A typed view of an array in shared memory, by its 32-bit shared-window address.
///
/// It knows no length: the kernel's launch shape bounds the indices (each kernel's
/// `SAFETY:` comment says how).
#[derive(Clone, Copy)]
pub struct SharedArray<T> {
    base: u32,
    _elem: PhantomData<T>,
}

impl<T> SharedArray<T> {
    /// # Safety
    /// `base` is the shared-window address of an array of `T`, aligned for `T`.
    #[inline(always)]
    pub const unsafe fn from_address(base: u32) -> Self {
        Self { base, _elem: PhantomData }
    }

    /// The shared-window address of element `index`, for instructions that take one
    /// (`cp.async`, `ldmatrix`).
    #[inline(always)]
    pub fn address(self, index: u32) -> u32 {
        self.base + index * core::mem::size_of::<T>() as u32
    }
}

/// `load` and `store` for one element type: `ld.shared.TY` / `st.shared.TY`, with the
/// register class that holds it.
macro_rules! shared_access {
    ($elem:ty, $ptx:literal, $class:ident) => {
        impl SharedArray<$elem> {
            #[doc = concat!("`ld.shared.", $ptx, " %r, [addr];` reads element `index`.")]
            ///
            /// # Safety
            /// `index` lies inside the array (its declaration, or the launch's dynamic size).
            #[inline(always)]
            pub unsafe fn load(self, index: u32) -> $elem {
                let value: $elem;
                // SAFETY: the caller keeps `index` inside the array.
                unsafe {
                    asm!(concat!("ld.shared.", $ptx, " {v}, [{a}];"), v = out($class) value,
                         a = in(reg32) self.address(index), options(nostack, readonly))
                };
                value
            }

            #[doc = concat!("`ld.volatile.shared.", $ptx, " %r, [addr];` reads element `index` and")]
            /// tells ptxas too that the read must happen: without `.volatile` it may merge
            /// repeated reads of one address (the `asm!` only binds LLVM). For probes that
            /// time the reads themselves.
            ///
            /// # Safety
            /// `index` lies inside the array (its declaration, or the launch's dynamic size).
            #[inline(always)]
            pub unsafe fn load_volatile(self, index: u32) -> $elem {
                let value: $elem;
                // SAFETY: the caller keeps `index` inside the array.
                unsafe {
                    asm!(concat!("ld.volatile.shared.", $ptx, " {v}, [{a}];"), v = out($class) value,
                         a = in(reg32) self.address(index), options(nostack, readonly))
                };
                value
            }

            #[doc = concat!("`st.shared.", $ptx, " [addr], %r;` writes element `index`.")]
            ///
            /// # Safety
            /// `index` lies inside the array, and no other thread accesses that element until
            /// a barrier orders the accesses.
            #[inline(always)]
            pub unsafe fn store(self, index: u32, value: $elem) {
                // SAFETY: the caller keeps `index` inside the array and orders the accesses.
                unsafe {
                    asm!(concat!("st.shared.", $ptx, " [{a}], {v};"), a = in(reg32) self.address(index),
                         v = in($class) value, options(nostack))
                }
            }
        }
    };
}

shared_access!(i32, "u32", reg32);
shared_access!(u16, "u16", reg16);
shared_access!(u32, "u32", reg32);
shared_access!(u64, "u64", reg64);
shared_access!(f32, "f32", reg32);

impl SharedArray<u32> {
    /// `ld.shared.v4.b32 {a,b,c,d}, [addr];` reads elements `index..index + 4` in one 16-byte
    /// access.
    ///
    /// # Safety
    /// `index` is a multiple of 4 and `index + 4` lies inside the array.
    #[inline(always)]
    pub unsafe fn load_v4(self, index: u32) -> [u32; 4] {
        let (a, b, c, d): (u32, u32, u32, u32);
        // SAFETY: the caller keeps the four words inside the array, 16-byte aligned.
        unsafe {
            asm!("ld.shared.v4.b32 {{{a}, {b}, {c}, {d}}}, [{p}];", a = out(reg32) a, b = out(reg32) b,
                 c = out(reg32) c, d = out(reg32) d, p = in(reg32) self.address(index), options(nostack, readonly))
        };
        [a, b, c, d]
    }

    /// `st.shared.v4.b32 [addr], {a,b,c,d};` writes elements `index..index + 4` (16 bytes,
    /// e.g. eight 16-bit values) in one access.
    ///
    /// # Safety
    /// `index` is a multiple of 4 and `index + 4` lies inside the array; no other thread
    /// accesses those elements until a barrier orders the accesses.
    #[inline(always)]
    pub unsafe fn store_v4(self, index: u32, v: [u32; 4]) {
        // SAFETY: the caller keeps the four words inside the array, 16-byte aligned.
        unsafe {
            asm!("st.shared.v4.b32 [{p}], {{{a}, {b}, {c}, {d}}};", p = in(reg32) self.address(index), a = in(reg32) v[0],
                 b = in(reg32) v[1], c = in(reg32) v[2], d = in(reg32) v[3], options(nostack))
        }
    }
}

impl SharedArray<f32> {
    /// `ld.shared.v4.f32 {a,b,c,d}, [addr];` reads elements `index..index + 4` in one
    /// 16-byte access.
    ///
    /// # Safety
    /// `index` is a multiple of 4 and `index + 4` lies inside the array.
    #[inline(always)]
    pub unsafe fn load_v4(self, index: u32) -> [f32; 4] {
        let (a, b, c, d): (f32, f32, f32, f32);
        // SAFETY: the caller keeps the four elements inside the array, 16-byte aligned.
        unsafe {
            asm!("ld.shared.v4.f32 {{{a}, {b}, {c}, {d}}}, [{p}];", a = out(reg32) a, b = out(reg32) b,
                 c = out(reg32) c, d = out(reg32) d, p = in(reg32) self.address(index), options(nostack, readonly))
        };
        [a, b, c, d]
    }

    /// `st.shared.v2.f32 [addr], {a,b};` writes elements `index` and `index + 1` in one
    /// 8-byte access.
    ///
    /// # Safety
    /// `index` is even and `index + 2` lies inside the array; no other thread accesses
    /// those elements until a barrier orders the accesses.
    #[inline(always)]
    pub unsafe fn store_v2(self, index: u32, v: [f32; 2]) {
        // SAFETY: the caller keeps the two elements inside the array, 8-byte aligned.
        unsafe {
            asm!("st.shared.v2.f32 [{p}], {{{a}, {b}}};", p = in(reg32) self.address(index), a = in(reg32) v[0],
                 b = in(reg32) v[1], options(nostack))
        }
    }

    /// `st.shared.v4.f32 [addr], {a,b,c,d};` writes elements `index..index + 4` in one
    /// 16-byte access.
    ///
    /// # Safety
    /// `index` is a multiple of 4 and `index + 4` lies inside the array; no other thread
    /// accesses those elements until a barrier orders the accesses.
    #[inline(always)]
    pub unsafe fn store_v4(self, index: u32, v: [f32; 4]) {
        // SAFETY: as above.
        unsafe {
            asm!("st.shared.v4.f32 [{p}], {{{a}, {b}, {c}, {d}}};", p = in(reg32) self.address(index), a = in(reg32) v[0],
                 b = in(reg32) v[1], c = in(reg32) v[2], d = in(reg32) v[3], options(nostack))
        }
    }
}

global_asm!(".extern .shared .align 16 .b8 dynamic_shared_memory[];");

/// The dynamic shared-memory array (CUDA's `extern __shared__ T a[];`), whose size in bytes
/// is the launch's `sharedMemBytes`.
#[inline(always)]
pub fn dynamic_shared<T>() -> SharedArray<T> {
    let base: u32;
    // SAFETY: `mov` of a symbol's address reads no memory.
    unsafe {
        asm!("mov.u32 {b}, dynamic_shared_memory;", b = out(reg32) base, options(pure, nomem, nostack))
    };
    // SAFETY: the array is declared 16-byte aligned, enough for any `T` used here.
    unsafe { SharedArray::from_address(base) }
}

/// The address of the dynamic shared memory's first `align`-byte boundary (`align` a power
/// of two): the array starts where the static shared arrays end, 16-byte aligned only, so a
/// launch that needs more (a swizzle atom's 1024 bytes, a bulk copy's 128-byte lines) gives
/// `align` bytes more than its data takes, and its data starts here.
#[inline(always)]
pub fn dynamic_shared_aligned(align: u32) -> u32 {
    (dynamic_shared::<u8>().address(0) + align - 1) & !(align - 1)
}

/// Declares a static shared array and a function that returns it:
///
/// ```ignore
/// static_shared! { fn warp_sums() -> [i32; 32]; }
/// let sums: SharedArray<i32> = warp_sums();
/// ```
///
/// emits `.shared .align 16 .b8 warp_sums[128];` into the PTX. ptxas reserves the array in
/// every kernel that refers to it, and only there.
#[macro_export]
macro_rules! static_shared {
    ($(#[$attr:meta])* $vis:vis fn $name:ident() -> [$elem:ty; $len:expr];) => {
        core::arch::global_asm!(
            concat!(".shared .align 16 .b8 ", stringify!($name), "[{bytes}];"),
            bytes = const $len * core::mem::size_of::<$elem>(),
        );

        $(#[$attr])*
        #[inline(always)]
        $vis fn $name() -> $crate::device::shared::SharedArray<$elem> {
            let base: u32;
            // SAFETY: `mov` of a symbol's address reads no memory.
            unsafe {
                core::arch::asm!(concat!("mov.u32 {b}, ", stringify!($name), ";"),
                                 b = out(reg32) base, options(pure, nomem, nostack))
            };
            // SAFETY: the array above is 16-byte aligned and holds `$len` elements.
            unsafe { $crate::device::shared::SharedArray::from_address(base) }
        }
    };
}
