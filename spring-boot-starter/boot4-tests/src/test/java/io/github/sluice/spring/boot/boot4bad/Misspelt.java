package io.github.sluice.spring.boot.boot4bad;

import io.github.sluice.spring.boot.web.RateLimited;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** A controller naming a policy that does not exist; outside the test application's scan. */
@RestController
public class Misspelt {

    /**
     * Limited by a misspelt policy name.
     *
     * @return never served: the start-up fails
     */
    @GetMapping("/misspelt")
    @RateLimited("per-kye")
    public String hello() {
        return "hello";
    }
}
