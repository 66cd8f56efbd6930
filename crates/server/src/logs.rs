//! Log lines on standard error, as text or as one JSON object per line
//! (`--log-format`, env `EQUIP_LOG_FORMAT`, for every command), filtered by
//! `RUST_LOG` (default `info`).
//!
//! equip's crates log through `tracing`; the dependencies that log through
//! `log` (actix-web, r2d2, ureq) are bridged into it. A line logged
//! while a request runs carries the fields of the request's span
//! (`equip_http`'s `logging`: `request_id`, `method`, `route`, `org_id`,
//! `key_id`); text lines show them as `tracing-subscriber` does
//! (`request{request_id=… method=GET …}: target: message status=401 …`), JSON
//! lines as fields of the object, beside `time`, `level`, `target` and
//! `message`.

use std::fmt;
use std::sync::OnceLock;

use chrono::{SecondsFormat, Utc};
use serde_json::{Map, Value};
use tracing::field::{Field, Visit};
use tracing::{Event, Subscriber};
use tracing_log::NormalizeEvent;
use tracing_subscriber::filter::{EnvFilter, LevelFilter};
use tracing_subscriber::fmt::format::{JsonFields, Writer};
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormattedFields};
use tracing_subscriber::registry::LookupSpan;

use crate::cli::LogFormat;

/// The format [`init`] installed (text before).
static FORMAT: OnceLock<LogFormat> = OnceLock::new();

/// Writes `message` for the operator on standard error whatever `RUST_LOG`
/// says (the listening address, what a command did): as it is in text, as a
/// JSON line like the log's (`level` `INFO`, `target` `equip`) in JSON.
pub fn announce(message: &str) {
    say("INFO", message);
}

/// Writes a command's failure on standard error: `error: …` in text, a JSON
/// line (`level` `ERROR`, `target` `equip`) in JSON.
pub fn fail(err: &anyhow::Error) {
    say("ERROR", &format!("{err:#}"));
}

fn say(level: &str, message: &str) {
    match FORMAT.get().copied().unwrap_or_default() {
        LogFormat::Text if level == "ERROR" => eprintln!("error: {message}"),
        LogFormat::Text => eprintln!("{message}"),
        LogFormat::Json => eprintln!(
            "{}",
            serde_json::json!({
                "time": now(),
                "level": level,
                "target": "equip",
                "message": message,
            })
        ),
    }
}

fn now() -> String {
    Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// Installs the logger (once; a second call changes nothing).
pub fn init(format: LogFormat) {
    if FORMAT.set(format).is_err() {
        return;
    }
    let filter = EnvFilter::builder()
        .with_default_directive(LevelFilter::INFO.into())
        .from_env_lossy();
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    // Also bridges `log` records (`tracing-log`).
    let installed = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder
            .fmt_fields(JsonFields::new())
            .event_format(JsonLine)
            .try_init(),
    };
    if let Err(e) = installed {
        eprintln!("cannot install the logger: {e}");
    }
}

/// One JSON object per line: `time`, `level`, `target`, `message`, the
/// fields of the spans the event is in (outermost first, so an inner span's
/// field wins), then the event's own fields.
struct JsonLine;

impl<S> FormatEvent<S, JsonFields> for JsonLine
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, JsonFields>,
        mut writer: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        // A `log` record's own target, not `log`.
        let normalized = event.normalized_metadata();
        let meta = normalized.as_ref().unwrap_or_else(|| event.metadata());
        let mut line = Map::new();
        line.insert("time".into(), now().into());
        line.insert("level".into(), meta.level().as_str().into());
        line.insert("target".into(), meta.target().into());
        line.insert("message".into(), "".into());
        if let Some(scope) = ctx.event_scope() {
            for span in scope.from_root() {
                let extensions = span.extensions();
                // JsonFields keeps a span's fields as a JSON object.
                let fields = extensions
                    .get::<FormattedFields<JsonFields>>()
                    .and_then(|f| serde_json::from_str::<Map<String, Value>>(f).ok());
                line.extend(fields.into_iter().flatten());
            }
        }
        event.record(&mut Fields(&mut line));
        writeln!(writer, "{}", Value::Object(line))
    }
}

/// An event's fields into the line (without the `log.*` fields a bridged
/// record carries: its target, module, file and line).
struct Fields<'a>(&'a mut Map<String, Value>);

impl Fields<'_> {
    fn put(&mut self, field: &Field, value: Value) {
        if !field.name().starts_with("log.") {
            self.0.insert(field.name().to_owned(), value);
        }
    }
}

impl Visit for Fields<'_> {
    fn record_f64(&mut self, field: &Field, value: f64) {
        self.put(field, value.into());
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.put(field, value.into());
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.put(field, value.into());
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.put(field, value.into());
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.put(field, value.into());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.put(field, format!("{value:?}").into());
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::io;
    use std::sync::{Arc, Mutex};
    use tracing_subscriber::fmt::MakeWriter;

    /// What the subscriber wrote.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl io::Write for Captured {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    impl<'a> MakeWriter<'a> for Captured {
        type Writer = Self;
        fn make_writer(&'a self) -> Self {
            self.clone()
        }
    }

    #[test]
    fn json_lines_hold_the_spans_fields_and_the_events_at_the_top() {
        let captured = Captured::default();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(captured.clone())
            .fmt_fields(JsonFields::new())
            .event_format(JsonLine)
            .finish();
        tracing::subscriber::with_default(subscriber, || {
            let span = tracing::error_span!(
                "request",
                request_id = "r-1",
                route = "/a/{id}",
                org_id = tracing::field::Empty
            );
            let _in = span.enter();
            span.record("org_id", "o-1");
            let inner = tracing::info_span!("inner", route = "/b");
            let _inner = inner.enter();
            tracing::warn!(status = 503u16, latency_ms = 1.5, "GET /b {}", 503);
        });
        let text = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
        let line: Value = serde_json::from_str(text.trim()).unwrap();
        assert_eq!(line["level"], "WARN", "{line}");
        assert_eq!(line["target"], "equip_server::logs::tests", "{line}");
        assert_eq!(line["message"], "GET /b 503", "{line}");
        assert_eq!(line["request_id"], "r-1", "{line}");
        assert_eq!(line["org_id"], "o-1", "{line}");
        assert_eq!(line["route"], "/b", "the inner span's field wins: {line}");
        assert_eq!(line["status"], 503, "{line}");
        assert_eq!(line["latency_ms"], 1.5, "{line}");
        assert!(line["time"].as_str().unwrap().ends_with('Z'), "{line}");
    }
}
