package com.example.consumer;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** A team's application: Sluice comes from application.yml alone. */
@SpringBootApplication
@RestController
public class ConsumerApplication {

    @GetMapping("/hello")
    String hello() {
        return "hello\n";
    }

    public static void main(String[] args) {
        SpringApplication.run(ConsumerApplication.class, args);
    }
}
