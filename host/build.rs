//! Builds the kernel-source fingerprint into the host, so that it can tell a stale PTX
//! (see the `fingerprint` crate).

fn main() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for source in fingerprint::KERNEL_SOURCES {
        println!("cargo:rerun-if-changed=../{source}");
    }
    let print = fingerprint::fingerprint(&root).expect("reading the kernel sources");
    println!("cargo:rustc-env=KERNEL_SOURCE_FINGERPRINT={print}");
}
