//! Names for the variants of every `oneOf` in the OpenAPI document. utoipa writes an
//! enum's variants inline; client generators then drop or mangle them (openapi-python-client
//! could not build a single order). Here each inline variant becomes a component schema of
//! its own, named after its tag (`purchase` of `OrderInput` is `PurchaseOrder`), and a
//! `oneOf` whose variants share a tag property gets a `discriminator` mapping each tag to
//! its schema.

use std::collections::BTreeMap;

use utoipa::openapi::schema::{Discriminator, Schema};
use utoipa::openapi::{OpenApi, Ref, RefOr};

#[derive(Debug)]
pub struct NamedVariants;

impl utoipa::Modify for NamedVariants {
    fn modify(&self, openapi: &mut OpenApi) {
        let Some(components) = openapi.components.as_mut() else {
            return;
        };
        let mut lifted: BTreeMap<String, RefOr<Schema>> = BTreeMap::new();
        for (parent, schema) in components.schemas.iter_mut() {
            let RefOr::T(Schema::OneOf(one_of)) = schema else {
                continue;
            };
            let suffix = parent.strip_suffix("Input").unwrap_or(parent);
            let tag = shared_tag(&one_of.items);
            let mut mapping = BTreeMap::new();
            for item in one_of.items.iter_mut() {
                let RefOr::T(Schema::Object(variant)) = item else {
                    continue;
                };
                let label = match &tag {
                    Some(tag) => tag_value(variant, tag),
                    // Externally tagged (`{"after_round": 2}`): the one property names it.
                    None => (variant.properties.len() == 1)
                        .then(|| variant.properties.keys().next().cloned())
                        .flatten(),
                };
                let Some(label) = label else { continue };
                let name = format!("{}{}", pascal(&label), suffix);
                mapping.insert(label, format!("#/components/schemas/{name}"));
                let variant = std::mem::replace(item, RefOr::Ref(Ref::from_schema_name(&name)));
                lifted.insert(name, variant);
            }
            if let Some(tag) = tag {
                if mapping.len() == one_of.items.len() {
                    let mut discriminator = Discriminator::new(tag);
                    discriminator.mapping = mapping.into_iter().collect();
                    one_of.discriminator = Some(discriminator);
                }
            }
        }
        components.schemas.extend(lifted);
    }
}

/// The property every variant requires with a single string value (`type`, `rule`), if any.
fn shared_tag(items: &[RefOr<Schema>]) -> Option<String> {
    let RefOr::T(Schema::Object(first)) = items.first()? else {
        return None;
    };
    first
        .properties
        .keys()
        .find(|name| {
            items.iter().all(|item| match item {
                RefOr::T(Schema::Object(variant)) => {
                    variant.required.contains(name) && tag_value(variant, name).is_some()
                }
                _ => false,
            })
        })
        .cloned()
}

/// The single value a variant's tag property takes.
fn tag_value(variant: &utoipa::openapi::schema::Object, tag: &str) -> Option<String> {
    let RefOr::T(Schema::Object(property)) = variant.properties.get(tag)? else {
        return None;
    };
    match property.enum_values.as_deref() {
        Some([serde_json::Value::String(value)]) => Some(value.clone()),
        _ => None,
    }
}

/// `end_phase` -> `EndPhase`.
fn pascal(snake: &str) -> String {
    snake
        .split(['_', '-'])
        .map(|word| {
            let mut chars = word.chars();
            chars
                .next()
                .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
                .unwrap_or_default()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_case_tags_become_pascal_case_names() {
        assert_eq!(pascal("end_phase"), "EndPhase");
        assert_eq!(pascal("percent_ipc_gain"), "PercentIpcGain");
        assert_eq!(pascal("ccp"), "Ccp");
    }
}
