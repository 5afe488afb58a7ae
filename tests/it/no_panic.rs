//! Mutated inputs never panic the reader: every fixture, cut, spliced and
//! sprinkled with XML punctuation, goes through the whole read. (A coverage
//! guided fuzzer is the next step; this keeps the cheap guarantee in CI.)

use crate::util;

use util::Rng;

fn read(bytes: Vec<u8>) {
    let mut bake = util::load_text("m.x3d", &bytes);
    bake.animate(Default::default());
    let _ = bake.report();
    for d in bake.diags.list() {
        let _ = d.render(&bake.sources);
    }
}

#[test]
fn mutated_fixtures_do_not_panic() {
    let mut files = util::fixtures("scenes", "x3d");
    files.extend(util::fixtures("errors", "x3d"));
    let pieces: [&[u8]; 12] = [
        b"<",
        b">",
        b"\"",
        b"'",
        b"&",
        b"&amp;",
        b"/>",
        b"</Scene>",
        b" DEF='A'",
        b" USE='A'",
        b"\xff",
        b"\xc3",
    ];
    let mut r = Rng(42);
    let mut runs = 0;
    for f in files {
        let original = std::fs::read(&f).unwrap();
        for _ in 0..1500 {
            let mut b = original.clone();
            for _ in 0..1 + r.below(4) {
                let at = r.below(b.len() + 1);
                match r.below(4) {
                    0 => b.truncate(at),
                    1 => {
                        let p = pieces[r.below(pieces.len())];
                        b.splice(at..at, p.iter().copied());
                    }
                    2 if at < b.len() => {
                        let end = (at + r.below(20)).min(b.len());
                        b.drain(at..end);
                    }
                    _ if at < b.len() => b[at] = (r.unit() * 256.0) as u8,
                    _ => {}
                }
            }
            read(b);
            runs += 1;
        }
    }
    assert!(runs > 20_000);
}
