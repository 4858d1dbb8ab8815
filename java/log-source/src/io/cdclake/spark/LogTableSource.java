package io.cdclake.spark;

import java.util.Map;

import org.apache.spark.sql.cassandra.DefaultSource;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The Spark Cassandra Connector's data source ({@code org.apache.spark.sql.cassandra}) for tables
 * whose column names Spark SQL must quote, as the {@code cdc$} columns of a ScyllaDB CDC log table.
 *
 * <p>The connector (3.5.1) fails such a table twice: its scan reports its partitioning with the
 * partition key's names, which Spark parses as SQL identifiers ({@code cdc$stream_id} does not
 * parse: every query fails while it is planned), and it pushes no filter on a quoted name (Spark
 * hands it {@code `cdc$time`}, which names no column), so a {@code cdc$time} range is compared in
 * Spark, as strings. This source reads with the connector's own table and scan, but reports no
 * partitioning and gives the connector its filters with the names unquoted.
 */
public class LogTableSource implements TableProvider {
    private final DefaultSource connector = new DefaultSource();

    @Override
    public StructType inferSchema(CaseInsensitiveStringMap options) {
        return connector.inferSchema(options);
    }

    @Override
    public Table getTable(StructType schema, Transform[] partitioning, Map<String, String> properties) {
        return new LogTable((SupportsRead) connector.getTable(schema, partitioning, properties));
    }

    @Override
    public boolean supportsExternalMetadata() {
        return connector.supportsExternalMetadata();
    }
}
