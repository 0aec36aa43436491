//! The problem answers of each operation in the OpenAPI document, written from the error
//! codes its route declares (`resource!` in `routes`) and the error table's titles: one
//! answer per status, its description naming each code of that status with its title. An
//! operation's refusals are so declared once, as codes, and read the same everywhere.

use utoipa::openapi::path::{Operation, Parameter, ParameterBuilder, ParameterIn};
use utoipa::openapi::response::Responses;
use utoipa::openapi::{ContentBuilder, Ref, RefOr, Required, ResponseBuilder};

use crate::error::ErrorCode;

/// The header a write takes so that a retry gets the first answer.
pub const IDEMPOTENCY_KEY: &str = "Idempotency-Key";

/// Writes each operation's declared codes into its problem answers, and declares the
/// `Idempotency-Key` of the keyed ones.
#[derive(Debug)]
pub(crate) struct DeclaredResponses;

impl utoipa::Modify for DeclaredResponses {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        for (_, operation) in super::operations(openapi) {
            let Some(declared) = crate::routes::errors()
                .find(|d| operation.operation_id.as_deref() == Some(d.operation))
            else {
                continue;
            };
            if declared.keyed {
                operation
                    .parameters
                    .get_or_insert_with(Vec::new)
                    .push(idempotency_key());
            }
            for &code in declared.codes {
                add_refusal(&mut operation.responses, code, declared.refusal);
            }
        }
    }
}

/// Whether an operation takes an `Idempotency-Key`.
pub(crate) fn is_keyed(operation: &Operation) -> bool {
    operation
        .parameters
        .iter()
        .flatten()
        .any(|p| p.name == IDEMPOTENCY_KEY)
}

/// The `Idempotency-Key` header: printable ASCII (a header can carry no more), 1 to 200.
fn idempotency_key() -> Parameter {
    ParameterBuilder::new()
        .name(IDEMPOTENCY_KEY)
        .parameter_in(ParameterIn::Header)
        .required(Required::False)
        .description(Some("Retries with the same key get the first answer"))
        .schema(Some(
            utoipa::openapi::ObjectBuilder::new()
                .schema_type(utoipa::openapi::schema::Type::String)
                .pattern(Some("^[!-~]{1,200}$"))
                .min_length(Some(1))
                .max_length(Some(200)),
        ))
        .build()
}

/// Adds `code` to the problem answer of its status, making that answer if there is none.
pub(crate) fn add_problem(responses: &mut Responses, code: ErrorCode) {
    add_refusal(responses, code, None);
}

/// Adds `code` to the refusal of its status, written as a problem document or, for a
/// protocol of its own, in the schema `refusal` names.
fn add_refusal(responses: &mut Responses, code: ErrorCode, refusal: Option<(&str, &str)>) {
    let status = code.status().as_u16().to_string();
    let mut codes = match responses.responses.get(&status) {
        Some(RefOr::T(response)) => codes_named(&response.description),
        _ => Vec::new(),
    };
    if codes.contains(&code) {
        return;
    }
    codes.push(code);
    let mut answer = match refusal {
        None => problem_response(&describe(&codes)),
        Some((schema, media)) => refusal_response(&describe(&codes), schema, media),
    };
    // A status answered both ways (a protocol's refusal, and a problem from the edge before
    // the handler) keeps both bodies.
    if let (Some(RefOr::T(before)), RefOr::T(after)) =
        (responses.responses.get(&status), &mut answer)
    {
        for (media, content) in &before.content {
            after
                .content
                .entry(media.clone())
                .or_insert_with(|| content.clone());
        }
    }
    responses.responses.insert(status, answer);
}

/// An answer in a protocol's own form: `schema`, as `media`.
fn refusal_response(
    description: &str,
    schema: &str,
    media: &str,
) -> RefOr<utoipa::openapi::Response> {
    RefOr::T(
        ResponseBuilder::new()
            .description(description)
            .content(
                media,
                ContentBuilder::new()
                    .schema(Some(Ref::from_schema_name(schema)))
                    .build(),
            )
            .build(),
    )
}

/// The description of an answer that may carry any of `codes`: each code with its title,
/// one line each (a list when there are several).
fn describe(codes: &[ErrorCode]) -> String {
    let line = |code: &ErrorCode| format!("`{}`: {}", code.as_str(), code.spec().2);
    match codes {
        [one] => line(one),
        several => several
            .iter()
            .map(|code| format!("- {}", line(code)))
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// The codes a description written by [`describe`] names, in its order.
fn codes_named(description: &str) -> Vec<ErrorCode> {
    description
        .lines()
        .filter_map(|line| {
            let name = line
                .trim_start_matches("- ")
                .strip_prefix('`')?
                .split('`')
                .next()?;
            ErrorCode::ALL.iter().copied().find(|c| c.as_str() == name)
        })
        .collect()
}

/// An answer with a problem document.
fn problem_response(description: &str) -> RefOr<utoipa::openapi::Response> {
    RefOr::T(
        ResponseBuilder::new()
            .description(description)
            .content(
                "application/problem+json",
                ContentBuilder::new()
                    .schema(Some(Ref::from_schema_name("Problem")))
                    .build(),
            )
            .build(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_of_one_status_are_listed_each_with_its_title_and_read_back() {
        let mut responses = Responses::new();
        add_problem(&mut responses, ErrorCode::GameNotFound);
        let Some(RefOr::T(one)) = responses.responses.get("404") else {
            panic!("no 404");
        };
        assert_eq!(one.description, "`game-not-found`: No such game");
        add_problem(&mut responses, ErrorCode::BattleNotFound);
        add_problem(&mut responses, ErrorCode::GameNotFound);
        let Some(RefOr::T(two)) = responses.responses.get("404") else {
            panic!("no 404");
        };
        assert_eq!(
            two.description,
            "- `game-not-found`: No such game\n- `battle-not-found`: No such battle"
        );
        assert_eq!(
            codes_named(&two.description),
            [ErrorCode::GameNotFound, ErrorCode::BattleNotFound]
        );
    }
}
