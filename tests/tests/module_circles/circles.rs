//! Circles among sibling modules: at each level of a crate's tree, child `a` points at
//! sibling `b` when a file under `a` names anything under `b`; each such graph must be
//! acyclic.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use crate::modules::{Crate, Dependency, ModulePath};

/// The arrows among one module's children, each with the first dependency that draws it.
type Siblings<'a> = BTreeMap<String, BTreeMap<String, &'a Dependency>>;

/// One message per tangle of siblings that import each other: the crate, a circle
/// through the tangle as a path with the file and path behind each arrow, and the
/// tangle's other arrows when it holds more than that circle.
pub fn circles(krate: &Crate) -> Vec<String> {
    let mut levels: BTreeMap<ModulePath, Siblings> = BTreeMap::new();
    for dependency in &krate.dependencies {
        let shared = dependency
            .from
            .iter()
            .zip(&dependency.to)
            .take_while(|(a, b)| a == b)
            .count();
        // A module naming its own ancestor or descendant draws no arrow.
        let (Some(from), Some(to)) = (dependency.from.get(shared), dependency.to.get(shared))
        else {
            continue;
        };
        levels
            .entry(dependency.from[..shared].to_vec())
            .or_default()
            .entry(from.clone())
            .or_default()
            .entry(to.clone())
            .or_insert(dependency);
    }
    let mut messages = Vec::new();
    for (parent, siblings) in &levels {
        for tangle in tangles(siblings) {
            messages.push(describe(krate, parent, siblings, &tangle));
        }
    }
    messages
}

/// The strongly connected groups of more than one sibling (Tarjan's algorithm), each
/// in name order.
fn tangles(siblings: &Siblings) -> Vec<Vec<String>> {
    struct Search<'s, 'a> {
        siblings: &'s Siblings<'a>,
        index: BTreeMap<&'s str, usize>,
        low: BTreeMap<&'s str, usize>,
        stack: Vec<&'s str>,
        on_stack: BTreeSet<&'s str>,
        found: Vec<Vec<String>>,
    }
    impl<'s> Search<'s, '_> {
        fn visit(&mut self, node: &'s str) {
            let n = self.index.len();
            self.index.insert(node, n);
            self.low.insert(node, n);
            self.stack.push(node);
            self.on_stack.insert(node);
            for next in self.siblings.get(node).into_iter().flat_map(|m| m.keys()) {
                let next = next.as_str();
                if !self.index.contains_key(next) {
                    self.visit(next);
                    let low = self.low[node].min(self.low[next]);
                    self.low.insert(node, low);
                } else if self.on_stack.contains(next) {
                    let low = self.low[node].min(self.index[next]);
                    self.low.insert(node, low);
                }
            }
            if self.low[node] == self.index[node] {
                let mut group = Vec::new();
                while let Some(member) = self.stack.pop() {
                    self.on_stack.remove(member);
                    group.push(member.to_string());
                    if member == node {
                        break;
                    }
                }
                if group.len() > 1 {
                    group.sort();
                    self.found.push(group);
                }
            }
        }
    }
    let mut search = Search {
        siblings,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for node in siblings.keys() {
        if !search.index.contains_key(node.as_str()) {
            search.visit(node);
        }
    }
    search.found.sort();
    search.found
}

/// The shortest circle from the tangle's first member back to it, staying inside it.
fn shortest_circle(siblings: &Siblings, tangle: &[String]) -> Vec<String> {
    let start = &tangle[0];
    let mut came_from: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = VecDeque::from([start.as_str()]);
    while let Some(node) = queue.pop_front() {
        for next in siblings.get(node).into_iter().flat_map(|m| m.keys()) {
            if !tangle.contains(next) {
                continue;
            }
            if next == start {
                let mut circle = vec![start.clone()];
                let mut at = node;
                while at != start {
                    circle.push(at.to_string());
                    at = came_from[at];
                }
                circle.push(start.clone());
                circle.reverse();
                return circle;
            }
            if !came_from.contains_key(next.as_str()) {
                came_from.insert(next, node);
                queue.push_back(next);
            }
        }
    }
    unreachable!("a strongly connected group holds a circle through each member")
}

fn describe(krate: &Crate, parent: &[String], siblings: &Siblings, tangle: &[String]) -> String {
    let name = |child: &str| {
        parent
            .iter()
            .map(String::as_str)
            .chain([child])
            .collect::<Vec<_>>()
            .join("::")
    };
    let because = |from: &str, to: &str| {
        let d = siblings[from][to];
        format!("{}:{} names {}", d.file, d.line, d.path)
    };
    let circle = shortest_circle(siblings, tangle);
    let arrows: Vec<(&str, &str)> = circle
        .windows(2)
        .map(|w| (w[0].as_str(), w[1].as_str()))
        .collect();
    let mut message = format!(
        "{}: {} ({})",
        krate.label,
        circle
            .iter()
            .map(|c| name(c))
            .collect::<Vec<_>>()
            .join(" -> "),
        arrows
            .iter()
            .map(|(from, to)| because(from, to))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let others: Vec<String> = tangle
        .iter()
        .flat_map(|from| {
            siblings[from]
                .keys()
                .filter(|to| tangle.contains(to))
                .map(move |to| (from.as_str(), to.as_str()))
        })
        .filter(|arrow| !arrows.contains(arrow))
        .map(|(from, to)| format!("{} -> {} ({})", name(from), name(to), because(from, to)))
        .collect();
    if !others.is_empty() {
        message.push_str("\n    and within the same tangle: ");
        message.push_str(&others.join(",\n      "));
    }
    message
}
