//! Reading the Produce form's free-text fields. Plain Rust, so native tests
//! cover it.

/// Why the Headers field could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HeaderError {
    /// An entry without `=` between its key and value.
    NoEquals(String),
    /// An entry whose key is empty (Kafka requires a header key).
    EmptyKey(String),
}

/// Reads `key=value` pairs separated by commas, as
/// `kafka-console-producer.sh --property parse.headers=true` reads
/// `key:value` pairs: spaces around each part are dropped, an empty field
/// means no headers, and a key may repeat (Kafka allows duplicate header
/// keys, in order).
pub fn parse_headers(text: &str) -> Result<Vec<(String, String)>, HeaderError> {
    let mut headers = Vec::new();
    for entry in text.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        let Some((key, value)) = entry.split_once('=') else {
            return Err(HeaderError::NoEquals(entry.to_string()));
        };
        let key = key.trim();
        if key.is_empty() {
            return Err(HeaderError::EmptyKey(entry.to_string()));
        }
        headers.push((key.to_string(), value.trim().to_string()));
    }
    Ok(headers)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_comma_separated_key_value_pairs() {
        assert_eq!(parse_headers(""), Ok(vec![]));
        assert_eq!(parse_headers("  "), Ok(vec![]));
        assert_eq!(
            parse_headers("trace-id=7, source = web ,trace-id=8"),
            Ok(vec![("trace-id".into(), "7".into()), ("source".into(), "web".into()), ("trace-id".into(), "8".into())])
        );
        assert_eq!(parse_headers("empty="), Ok(vec![("empty".into(), String::new())]));
        assert_eq!(parse_headers("a=b=c"), Ok(vec![("a".into(), "b=c".into())]));
    }

    #[test]
    fn a_malformed_entry_is_named() {
        assert_eq!(parse_headers("a=1, oops"), Err(HeaderError::NoEquals("oops".into())));
        assert_eq!(parse_headers(" =1"), Err(HeaderError::EmptyKey("=1".into())));
    }
}
