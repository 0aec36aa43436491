//! A query-string extractor whose errors name the parameter that is wrong
//! (`query parameter `limit`: ...`), which actix's own `Query` does not.

use std::future::{ready, Ready};

use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest};
use serde::de::DeserializeOwned;
use serde::Deserialize;

use crate::error::ApiError;

#[derive(Debug, Clone)]
pub struct ValidQuery<T>(pub T);

impl<T> std::ops::Deref for ValidQuery<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: DeserializeOwned> FromRequest for ValidQuery<T> {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(parse_query(req.query_string()).map(ValidQuery))
    }
}

/// A query string parsed into `T`; the error names the parameter at fault.
pub fn parse_query<T: DeserializeOwned>(query: &str) -> Result<T, ApiError> {
    let pairs = form_urlencoded::parse(query.as_bytes());
    let deserializer = serde_urlencoded::Deserializer::new(pairs);
    serde_path_to_error::deserialize(deserializer).map_err(|e| {
        let path = e.path().to_string();
        if path == "." {
            ApiError::malformed(format!("query string: {}", e.inner()))
        } else {
            ApiError::malformed(format!("query parameter `{path}`: {}", e.inner()))
        }
    })
}

/// A season as a filter takes it: a calendar year, [`Season::MIN`] to [`Season::MAX`].
/// The document declares these very bounds (its schema is made from the constants), so a
/// value the document refuses is refused here too, with a 400 naming the parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(try_from = "i32")]
pub struct Season(i32);

impl Season {
    pub const MIN: i32 = 1900;
    pub const MAX: i32 = 9999;

    pub fn get(self) -> i32 {
        self.0
    }
}

impl TryFrom<i32> for Season {
    type Error = String;
    fn try_from(value: i32) -> Result<Self, Self::Error> {
        if (Self::MIN..=Self::MAX).contains(&value) {
            Ok(Season(value))
        } else {
            Err(format!(
                "{value} is not a year from {} to {}",
                Self::MIN,
                Self::MAX
            ))
        }
    }
}

impl utoipa::PartialSchema for Season {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{KnownFormat, ObjectBuilder, SchemaFormat, Type};
        ObjectBuilder::new()
            .schema_type(Type::Integer)
            .format(Some(SchemaFormat::KnownFormat(KnownFormat::Int32)))
            .minimum(Some(Self::MIN))
            .maximum(Some(Self::MAX))
            .into()
    }
}

impl utoipa::ToSchema for Season {}

/// A page size: 1 to 200, 100 when not given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(try_from = "u32")]
pub struct PageLimit(u32);

impl PageLimit {
    pub const MAX: u32 = 200;
    pub const DEFAULT: PageLimit = PageLimit(100);

    pub fn get(self) -> u32 {
        self.0
    }
}

impl TryFrom<u32> for PageLimit {
    type Error = String;
    fn try_from(value: u32) -> Result<Self, Self::Error> {
        if (1..=Self::MAX).contains(&value) {
            Ok(PageLimit(value))
        } else {
            Err(format!(
                "limit must be between 1 and {}, not {value}",
                Self::MAX
            ))
        }
    }
}
