/*
 * fb303: the classic base service for process status, counters and options that the
 * Hive Metastore service extends.
 *
 * Written for hivestore from the shape of the FacebookService client that pyiceberg
 * vendors (module fb303): the same method names, argument ids and types, so that any
 * client built from the original interface interoperates.
 */

namespace java com.facebook.fb303
namespace cpp facebook.fb303
namespace py fb303

/**
 * Status of a running service.
 */
enum fb_status {
  DEAD = 0,
  STARTING = 1,
  ALIVE = 2,
  STOPPING = 3,
  STOPPED = 4,
  WARNING = 5,
}

/**
 * Status, counters and options of a service.
 */
service FacebookService {

  /** Descriptive name of the service. */
  string getName(),

  /** Version of the service. */
  string getVersion(),

  /** The service's current status. */
  fb_status getStatus(),

  /** Human-readable explanation of the status. */
  string getStatusDetails(),

  /** All counters. */
  map<string, i64> getCounters(),

  /** One counter. */
  i64 getCounter(1: string key),

  /** Sets an option. */
  void setOption(1: string key, 2: string value),

  /** One option. */
  string getOption(1: string key),

  /** All options. */
  map<string, string> getOptions(),

  /** A CPU profile over the given number of seconds, if the service supports it. */
  string getCpuProfile(1: i32 profileDurationInSec),

  /** Unix time in seconds at which the server started. */
  i64 aliveSince(),

  /** Asks the server to reload its configuration. */
  oneway void reinitialize(),

  /** Asks the server to shut down. */
  oneway void shutdown(),
}
