package io.cdclake.spark;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownFilters;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.sources.EqualTo;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.sources.GreaterThan;
import org.apache.spark.sql.sources.GreaterThanOrEqual;
import org.apache.spark.sql.sources.In;
import org.apache.spark.sql.sources.LessThan;
import org.apache.spark.sql.sources.LessThanOrEqual;
import org.apache.spark.sql.types.StructType;

/**
 * The connector's scan builder, given filters with their column names unquoted; its scan is
 * wrapped so that it reports no partitioning.
 */
class LogScanBuilder implements ScanBuilder, SupportsPushDownFilters, SupportsPushDownRequiredColumns {
    private final ScanBuilder builder;
    private final Map<Filter, Filter> originals = new IdentityHashMap<>();   // unquoted -> as Spark gave it

    LogScanBuilder(ScanBuilder builder) {
        this.builder = builder;
    }

    @Override
    public Filter[] pushFilters(Filter[] filters) {
        List<Filter> unquoted = new ArrayList<>();
        for (Filter filter : filters) {
            Filter plain = unquoted(filter);
            originals.put(plain, filter);
            unquoted.add(plain);
        }
        return originals(((SupportsPushDownFilters) builder).pushFilters(unquoted.toArray(new Filter[0])));
    }

    @Override
    public Filter[] pushedFilters() {
        return originals(((SupportsPushDownFilters) builder).pushedFilters());
    }

    @Override
    public void pruneColumns(StructType requiredSchema) {
        ((SupportsPushDownRequiredColumns) builder).pruneColumns(requiredSchema);
    }

    @Override
    public Scan build() {
        return new UnpartitionedScan(builder.build());
    }

    private Filter[] originals(Filter[] filters) {
        Filter[] result = new Filter[filters.length];
        for (int i = 0; i < filters.length; i++) {
            result[i] = originals.getOrDefault(filters[i], filters[i]);
        }
        return result;
    }

    /** The name Spark quoted with backticks (a name with characters other than letters, digits, _). */
    static String unquotedName(String name) {
        if (name.length() >= 2 && name.startsWith("`") && name.endsWith("`")) {
            return name.substring(1, name.length() - 1).replace("``", "`");
        }
        return name;
    }

    /** The filters the connector pushes down, on the column's own name; others as they are. */
    static Filter unquoted(Filter filter) {
        if (filter instanceof EqualTo f) {
            return new EqualTo(unquotedName(f.attribute()), f.value());
        } else if (filter instanceof GreaterThan f) {
            return new GreaterThan(unquotedName(f.attribute()), f.value());
        } else if (filter instanceof GreaterThanOrEqual f) {
            return new GreaterThanOrEqual(unquotedName(f.attribute()), f.value());
        } else if (filter instanceof LessThan f) {
            return new LessThan(unquotedName(f.attribute()), f.value());
        } else if (filter instanceof LessThanOrEqual f) {
            return new LessThanOrEqual(unquotedName(f.attribute()), f.value());
        } else if (filter instanceof In f) {
            return new In(unquotedName(f.attribute()), f.values());
        }
        return filter;
    }

    /** The connector's scan without its partitioning report. */
    static final class UnpartitionedScan implements Scan {
        private final Scan scan;

        UnpartitionedScan(Scan scan) {
            this.scan = scan;
        }

        @Override
        public StructType readSchema() {
            return scan.readSchema();
        }

        @Override
        public String description() {
            return scan.description();
        }

        @Override
        public Batch toBatch() {
            return scan.toBatch();
        }
    }
}
