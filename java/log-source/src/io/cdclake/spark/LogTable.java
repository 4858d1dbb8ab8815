package io.cdclake.spark;

import java.util.Set;

import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/** The connector's table, read through {@link LogScanBuilder}. */
class LogTable implements SupportsRead {
    private final SupportsRead table;

    LogTable(SupportsRead table) {
        this.table = table;
    }

    @Override
    public String name() {
        return table.name();
    }

    @Override
    @SuppressWarnings("deprecation")
    public StructType schema() {
        return table.schema();
    }

    @Override
    public Set<TableCapability> capabilities() {
        return table.capabilities();
    }

    @Override
    public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
        return new LogScanBuilder(table.newScanBuilder(options));
    }
}
