import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/** Sends each message read from stdin to a topic's partition 0: messages are separated by a
 *  line holding only "---", so a message may span lines. Usage: Produce BOOTSTRAP TOPIC. */
public class Produce {
    public static void main(String[] args) throws Exception {
        Properties props = new Properties();
        props.put("bootstrap.servers", args[0]);
        props.put("key.serializer", "org.apache.kafka.common.serialization.ByteArraySerializer");
        props.put("value.serializer", "org.apache.kafka.common.serialization.ByteArraySerializer");
        props.put("acks", "all");
        props.put("enable.idempotence", "true");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            StringBuilder message = new StringBuilder();
            boolean any = false;
            for (String line; (line = in.readLine()) != null; ) {
                if (line.equals("---")) {
                    producer.send(new ProducerRecord<>(args[1], 0, null, message.toString().getBytes(StandardCharsets.UTF_8))).get();
                    message.setLength(0);
                    any = false;
                } else {
                    if (any) message.append('\n');
                    message.append(line);
                    any = true;
                }
            }
            producer.flush();
        }
    }
}
