fn main() {
    let p = std::env::args().nth(1).unwrap();
    let t = std::time::Instant::now();
    let mut n = 0u64;
    let mut x = 0u64;
    for r in trace::native::NativeReader::open(p.as_ref()).unwrap() {
        let r = r.unwrap();
        n += 1;
        x = x.wrapping_add(r.offset_bytes);
    }
    eprintln!("decode {n} in {:.2} s ({x})", t.elapsed().as_secs_f64());
}
