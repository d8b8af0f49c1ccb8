/**
 * Sluice's Jakarta Servlet adapter: {@link io.github.sluice.servlet.SluiceFilter}.
 */
module io.github.sluice.servlet {
    requires transitive io.github.sluice.core;
    requires transitive jakarta.servlet;

    exports io.github.sluice.servlet;
}
