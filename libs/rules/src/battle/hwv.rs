//! AAP Historical's Heavy Weapons Fire Vulnerability (4.1, 4.2): a group of more than 20
//! counted units takes heavy weapons' hits twice. It lives with the battle engine, which
//! decides it in every round; `crate::aap::hwv` names it with the rest of AAP's rules.

/// A group larger than this is vulnerable.
pub const MAX_UNITS: u32 = 20;

/// Units that do not count towards a group's size.
pub fn counts(unit: &str) -> bool {
    !matches!(unit, "sub" | "ftr" | "bmr" | "aa")
}

/// Units whose hits count twice against a vulnerable group.
pub fn heavy(unit: &str) -> bool {
    matches!(unit, "art" | "ftr" | "bmr" | "des" | "bb")
}

/// Whether a side is vulnerable this round, from its groups: one nation's group above
/// 20 counted units (4.1), where a group that cannot count (the CCP's) never does.
/// Allies' groups are not added together, but when one is vulnerable the whole stack
/// is (4.2). Each group is `(whether it may count, its counted units)`; the battle
/// engine sizes them by its catalogue's `hwv_exempt`.
pub fn vulnerable(groups: impl IntoIterator<Item = (bool, u32)>) -> bool {
    groups
        .into_iter()
        .any(|(may_count, size)| may_count && size > MAX_UNITS)
}

/// Casualties the hits inflict: heavy weapons' hits twice against a vulnerable side.
pub fn casualties(hits: &[(&str, u32)], target_vulnerable: bool) -> u32 {
    hits.iter()
        .map(|(unit, n)| {
            if target_vulnerable && heavy(unit) {
                2 * n
            } else {
                *n
            }
        })
        .sum()
}
