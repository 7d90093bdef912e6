//! hivestore's storage engine. Knows nothing of Thrift or sockets.
#![deny(missing_docs)]
