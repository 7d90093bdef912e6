//! The load generator's one error type.

use crate::fixture::MARKER_PARAMETER;

/// Why a benchmark run could not be done. A workload that a server does not implement is not
/// an error: its rows say `unsupported`.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An argument is out of range or malformed; the message says which and what is allowed.
    #[error("{0}")]
    Argument(String),
    /// The endpoint could not be reached.
    #[error("cannot connect to {endpoint}: {source}")]
    Connect {
        /// The endpoint, as given.
        endpoint: String,
        /// What the socket said.
        source: std::io::Error,
    },
    /// A setup or teardown call failed.
    #[error("{endpoint}: {call} failed: {}", describe(source))]
    Call {
        /// The endpoint, as given.
        endpoint: String,
        /// The call and its object, e.g. `create_table hivestore_bench.bench_table_0`.
        call: String,
        /// What the server (or the transport) answered.
        source: thrift::Error,
    },
    /// The bench database exists and bench did not create it: bench touches only its own objects.
    #[error(
        "database {database} on {endpoint} exists and was not created by hivestore bench \
         (it has no {MARKER_PARAMETER} parameter); choose another name with --database"
    )]
    NotOurs {
        /// The endpoint, as given.
        endpoint: String,
        /// The database name.
        database: String,
    },
    /// The report could not be written.
    #[error("cannot write the report to {target}: {source}")]
    Output {
        /// Where it was going.
        target: String,
        /// What the file system said.
        source: std::io::Error,
    },
}

/// A Thrift error as a person needs it: a declared exception with its message (its `Display`
/// names only its type), an application exception with the server's message (its `Display`
/// words only its kind), a transport error with what the socket said (its `Display` says only
/// "transport error"), anything else as Thrift words it.
pub fn describe(error: &thrift::Error) -> String {
    match error {
        thrift::Error::User(exception) => format!("{exception:?}"),
        thrift::Error::Application(application) if !application.message.is_empty() => {
            format!("{error}: {}", application.message)
        }
        thrift::Error::Transport(transport) if !transport.message.is_empty() => {
            format!("{error}: {}", transport.message)
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn application_exceptions_keep_the_servers_message() {
        let error = thrift::Error::Application(thrift::ApplicationError::new(
            thrift::ApplicationErrorKind::InternalError,
            "open_txns asks for 10000 transactions",
        ));
        let described = describe(&error);
        assert!(
            described.ends_with(": open_txns asks for 10000 transactions"),
            "{described}"
        );
    }

    #[test]
    fn transport_errors_keep_what_the_socket_said() {
        let timed_out = std::io::Error::new(std::io::ErrorKind::TimedOut, "no reply within 2 s");
        let described = describe(&thrift::Error::from(timed_out));
        assert!(described.ends_with(": no reply within 2 s"), "{described}");
    }
}
