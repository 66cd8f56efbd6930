//! Log lines (through `log` and `env_logger`, filtered by `RUST_LOG`,
//! default `info`), on standard error, as text or as one JSON object per
//! line (`serve --log-format json`). A line logged while a request runs
//! carries the request's id (`equip_http::request_id`).

use std::io::Write;

use chrono::{SecondsFormat, Utc};

use crate::cli::LogFormat;

/// Writes `message` for the operator on standard error whatever `RUST_LOG`
/// says (the listening address, a first-run hint): as it is in text, as a
/// JSON line like the log's (`level` `INFO`, `target` `equip`) in JSON.
pub fn announce(format: LogFormat, message: &str) {
    match format {
        LogFormat::Text => eprintln!("{message}"),
        LogFormat::Json => eprintln!(
            "{}",
            serde_json::json!({
                "time": Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true),
                "level": "INFO",
                "target": "equip",
                "message": message,
            })
        ),
    }
}

/// Installs the logger.
pub fn init(format: LogFormat) {
    let mut builder =
        env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info"));
    builder.target(env_logger::Target::Stderr);
    match format {
        LogFormat::Text => builder.format(|buf, record| {
            let time = Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true);
            write!(
                buf,
                "[{time} {:<5} {}] {}",
                record.level(),
                record.target(),
                record.args()
            )?;
            if let Some(id) = equip_http::request_id::current() {
                write!(buf, " request_id={id}")?;
            }
            writeln!(buf)
        }),
        LogFormat::Json => builder.format(|buf, record| {
            let mut line = serde_json::json!({
                "time": Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true),
                "level": record.level().as_str(),
                "target": record.target(),
                "message": record.args().to_string(),
            });
            if let Some(id) = equip_http::request_id::current() {
                line["request_id"] = serde_json::Value::from(id.as_str());
            }
            writeln!(buf, "{line}")
        }),
    };
    builder.init();
}
