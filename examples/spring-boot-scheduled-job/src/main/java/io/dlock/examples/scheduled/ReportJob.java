package io.dlock.examples.scheduled;

import io.dlock.spring.DistributedLocked;
import io.dlock.spring.WhenBusy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.Scheduled;

import java.time.LocalTime;
import java.time.temporal.ChronoUnit;

/**
 * A job every instance schedules every second, which must run on one instance per tick: the lock is tried once
 * ({@code whenBusy = SKIP}: an instance that finds it taken skips its tick), and kept for at least 500 ms so that an
 * instance whose clock or scheduler is a little late does not take it again for the same tick.
 */
public class ReportJob {
    private static final Logger log = LoggerFactory.getLogger(ReportJob.class);

    private final String instance;

    public ReportJob(String instance) {
        this.instance = instance;
    }

    @Scheduled(cron = "* * * * * *")
    @DistributedLocked(name = "example:report", whenBusy = WhenBusy.SKIP, minHoldTime = "500ms")
    public void writeReport() {
        log.info("tick {}: instance {} writes the report", LocalTime.now().truncatedTo(ChronoUnit.SECONDS), instance);
    }
}
