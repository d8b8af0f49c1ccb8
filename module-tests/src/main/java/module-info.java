/**
 * A modular application that uses every published Sluice module, so that the tests in this
 * module run on the module path: they see exactly what a modular user sees (the exported
 * packages) and the module system checks every {@code requires} of Sluice's descriptors.
 */
module io.github.sluice.moduletests {
    requires io.github.sluice.servlet;
    requires io.github.sluice.jaxrs;
    requires io.github.sluice.redis;
}
