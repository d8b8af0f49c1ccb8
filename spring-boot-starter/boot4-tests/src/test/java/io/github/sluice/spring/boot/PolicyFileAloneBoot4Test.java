package io.github.sluice.spring.boot;

import io.github.sluice.spring.boot.filealone.FileAloneApplication;

/** A policies file alone turns Sluice on, on Boot 4.0 and Tomcat 11 (chosen: Jetty is on the class path too). */
class PolicyFileAloneBoot4Test extends PolicyFileAloneContract {

    @Override
    Class<?>[] sources() {
        return new Class<?>[] {FileAloneApplication.class, TomcatBoot4Test.OnTomcat.class};
    }
}
