//! CFG queries: successors from terminators, predecessors from use lists, reverse post-order,
//! dominators and dominance frontiers, on hand-written functions.

use oneshader_ir::cfg::{Cfg, predecessors, successors};
use oneshader_ir::{Block, Module, parse::parse};

fn func(text: &str) -> (Module, Vec<Block>, Cfg) {
    let m = parse(text).expect("parses");
    let f = m.functions()[0];
    let blocks = f.blocks(&m);
    let cfg = Cfg::new(&m, f);
    (m, blocks, cfg)
}

const DIAMOND_IN_LOOP: &str = "func @f(%0: bool, %1: bool) -> void {
bb0:
  loop bb1, break bb5, continue bb4
bb1:
  cond_br %0, bb2, bb5
bb2:
  if_else %1, bb3, bb6, merge bb4
bb3:
  br bb4
bb4:
  br bb1
bb5:
  return
bb6:
  br bb4
bb7:
  return
}
";

#[test]
fn successors_and_predecessors() {
    let (m, b, _) = func(DIAMOND_IN_LOOP);
    // `loop` has one successor, the header; its break and continue are join points.
    assert_eq!(successors(&m, b[0]).to_vec(), vec![b[1]]);
    assert_eq!(successors(&m, b[1]).to_vec(), vec![b[2], b[5]]);
    // `if_else`: then and else are successors, the merge is not.
    assert_eq!(successors(&m, b[2]).to_vec(), vec![b[3], b[6]]);
    let sorted = |mut v: Vec<Block>| {
        v.sort();
        v
    };
    assert_eq!(sorted(predecessors(&m, b[4])), sorted(vec![b[3], b[6]]));
    assert_eq!(sorted(predecessors(&m, b[1])), sorted(vec![b[0], b[4]]));
    assert!(predecessors(&m, b[7]).is_empty());
}

#[test]
fn rpo_dominators_and_reachability() {
    let (_, b, cfg) = func(DIAMOND_IN_LOOP);
    let rpo = cfg.rpo().to_vec();
    assert_eq!(rpo[0], b[0]);
    assert_eq!(rpo.len(), 7, "bb7 is unreachable");
    assert!(!cfg.is_reachable(b[7]));
    // Every block comes after its dominator in RPO.
    for &x in &rpo[1..] {
        let d = cfg.idom(x).unwrap();
        assert!(cfg.rpo_number(d) < cfg.rpo_number(x));
    }
    assert_eq!(cfg.idom(b[1]), Some(b[0]));
    assert_eq!(cfg.idom(b[4]), Some(b[2]));
    assert_eq!(cfg.idom(b[5]), Some(b[1]));
    assert!(cfg.dominates(b[1], b[4]));
    assert!(cfg.dominates(b[2], b[2]));
    assert!(!cfg.dominates(b[3], b[4]));
    assert!(
        !cfg.dominates(b[7], b[7]),
        "unreachable blocks dominate nothing"
    );
    let mut kids = cfg.dom_children(b[2]).to_vec();
    kids.sort();
    let mut want = vec![b[3], b[4], b[6]];
    want.sort();
    assert_eq!(kids, want);
}

#[test]
fn dominance_frontiers() {
    let (_, b, cfg) = func(DIAMOND_IN_LOOP);
    assert_eq!(cfg.dominance_frontier(b[3]), vec![b[4]]);
    assert_eq!(cfg.dominance_frontier(b[6]), vec![b[4]]);
    // The back edge puts the header in the frontier of the loop body.
    assert_eq!(cfg.dominance_frontier(b[4]), vec![b[1]]);
    assert_eq!(cfg.dominance_frontier(b[2]), vec![b[1]]);
    assert!(cfg.dominance_frontier(b[0]).is_empty());
}

#[test]
fn cfg_of_every_example_is_consistent() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/ir");
    for e in std::fs::read_dir(dir).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_none_or(|x| x != "ir") {
            continue;
        }
        let m = parse(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for f in m.functions() {
            let cfg = Cfg::new(&m, f);
            for &blk in cfg.blocks() {
                for s in cfg.succs(blk) {
                    assert!(cfg.preds(s).contains(&blk), "{}", path.display());
                }
                if cfg.is_reachable(blk) {
                    assert!(cfg.dominates(cfg.entry().unwrap(), blk));
                }
            }
        }
    }
}

#[test]
fn block_numbers_and_index_queries() {
    let text = format!(
        "{DIAMOND_IN_LOOP}
func @g() -> void {{
bb0:
  return
}}
"
    );
    let m = parse(&text).expect("parses");
    let (f, g) = (m.functions()[0], m.functions()[1]);
    let cfg = Cfg::new(&m, f);
    let b = f.blocks(&m);
    // Numbers follow block order; a block of another function, or an instruction that is not a
    // block, has none (the slot-indexed table is checked against the block list).
    for (i, &x) in b.iter().enumerate() {
        assert_eq!(cfg.index_of(x), Some(i));
    }
    let other = g.blocks(&m)[0];
    assert_eq!(cfg.index_of(other), None);
    assert!(cfg.preds(other).is_empty() && cfg.succs(other).is_empty());
    assert!(!cfg.is_reachable(other));
    // Index rows agree with the block-valued queries.
    for (i, &x) in b.iter().enumerate() {
        let by_index: Vec<Block> = cfg.pred_indices(i).iter().map(|&p| b[p as usize]).collect();
        assert_eq!(by_index, cfg.preds(x).to_vec());
    }
    let df = cfg.dominance_frontier_indices();
    assert_eq!(df.len(), b.len());
    for (i, row) in df.iter().enumerate() {
        let blocks: Vec<Block> = row.iter().map(|&k| b[k as usize]).collect();
        assert_eq!(blocks, cfg.dominance_frontier(b[i]));
    }
    // bb4 is reached from bb3 and bb6 (the if_else names it only as its merge).
    assert_eq!(cfg.preds(b[4]).to_vec(), vec![b[3], b[6]]);
    // Dominator children come in reverse post-order and iterate from both ends.
    let kids = cfg.dom_children(b[2]).to_vec();
    let back: Vec<Block> = cfg.dom_children(b[2]).rev().collect();
    assert_eq!(back, kids.iter().rev().copied().collect::<Vec<_>>());
    let rpo: Vec<usize> = kids.iter().map(|&k| cfg.rpo_number(k).unwrap()).collect();
    assert!(rpo.windows(2).all(|w| w[0] < w[1]));
}
