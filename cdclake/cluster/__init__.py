"""A live cluster read with the Spark Cassandra Connector (``cdclake load cluster``): its address
and the connector's session, its schemas and generations, its CDC logs pulled since a mark, its
tables backfilled."""
