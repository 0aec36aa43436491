//! utoipa writes a Rust `u32` as `integer`, `format: int32`, `minimum: 0`, yet `int32` ends
//! at 2,147,483,647 where a `u32` goes on to 4,294,967,295: a request the document calls
//! out of range was accepted. This modifier makes the document say what the service takes:
//! such integers are `int64` with the `u32`'s maximum (where no tighter one is declared).

use utoipa::openapi::OpenApi;

/// The largest value of a `u32`.
const U32_MAX: f64 = 4_294_967_295.0;

#[derive(Debug)]
pub struct UnsignedBounds;

impl utoipa::Modify for UnsignedBounds {
    fn modify(&self, openapi: &mut OpenApi) {
        // The document as JSON is the one place every schema can be reached the same way.
        let Ok(mut document) = serde_json::to_value(&*openapi) else {
            return;
        };
        bound(&mut document);
        if let Ok(bounded) = serde_json::from_value::<OpenApi>(document) {
            *openapi = bounded;
        }
    }
}

/// Every integer schema that is `int32` from 0 with no maximum becomes `int64` up to
/// `u32::MAX`.
fn bound(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Object(map) => {
            let unsigned = map.get("format").and_then(|f| f.as_str()) == Some("int32")
                && map.get("minimum").and_then(|m| m.as_f64()) == Some(0.0)
                && !map.contains_key("maximum");
            if unsigned {
                map.insert("format".into(), "int64".into());
                map.insert("maximum".into(), serde_json::json!(U32_MAX as u64));
            }
            map.values_mut().for_each(bound);
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(bound),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unsigned_int32_is_declared_with_the_range_a_u32_takes() {
        let mut schema = serde_json::json!({
            "a": {"type": "integer", "format": "int32", "minimum": 0},
            "b": {"type": "integer", "format": "int32", "minimum": 0, "maximum": 60},
            "c": [{"type": "integer", "format": "int32"}]
        });
        bound(&mut schema);
        assert_eq!(schema["a"]["format"], "int64");
        assert_eq!(schema["a"]["maximum"], 4_294_967_295u64);
        assert_eq!(schema["b"]["format"], "int32");
        assert_eq!(schema["c"][0]["format"], "int32");
    }
}
