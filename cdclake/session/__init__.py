"""The Spark session and the warehouse it serves: start-up, class archive, one process per target, Thrift."""
