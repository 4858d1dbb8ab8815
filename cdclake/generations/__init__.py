"""CDC generations: made from a cluster history, imported from a cluster, and ScyllaDB's admission rule."""
