package org.deidentifier.arx.risk;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.deidentifier.arx.ARXPopulationModel;
import org.deidentifier.arx.ARXSolverConfiguration;
import org.deidentifier.arx.DataHandleInternal;
import org.deidentifier.arx.common.WrappedBoolean;
import org.deidentifier.arx.common.WrappedInteger;
import com.carrotsearch.hppc.IntIntOpenHashMap;

/** Harness (not ARX code): prints ARX's estimates for a histogram, or ARX's attacker risks for CSV files. */
public class Golden {
    public static void main(String[] args) throws Exception {
        if (args[0].equals("pu")) {
            // One histogram per line of standard input: "fraction size:count size:count ..."
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
            String line;
            while ((line = in.readLine()) != null) {
                String[] fields = line.trim().split(" ");
                double pi = Double.parseDouble(fields[0]);
                IntIntOpenHashMap map = new IntIntOpenHashMap();
                int n = 0;
                for (int i = 1; i < fields.length; i++) {
                    String[] p = fields[i].split(":");
                    int s = Integer.parseInt(p[0]), c = Integer.parseInt(p[1]);
                    map.put(s, c);
                    n += s * c;
                }
                RiskModelHistogram h = new RiskModelHistogram(map);
                ARXPopulationModel pop = ARXPopulationModel.create(n, pi);
                ARXSolverConfiguration config = ARXSolverConfiguration.create();
                WrappedBoolean stop = new WrappedBoolean();
                double pitman = new ModelPitman(pop, h, config, stop).getNumUniques();
                double zayatz = new ModelZayatz(pop, h, stop).getNumUniques();
                double snb = new ModelSNB(pop, h, config, stop).getNumUniques();
                RiskModelPopulationUniqueness m = new RiskModelPopulationUniqueness(pop, h, config);
                System.out.println(pop.getPopulationSize() + " " + pitman + " " + zayatz + " " + snb + " "
                                   + m.getNumUniqueTuplesDankar() + " " + m.getPopulationUniquenessModel());
            }
        } else {
            double threshold = Double.parseDouble(args[1]);
            DataHandleInternal population = args.length > 3 ? read(args[3], null) : null;
            DataHandleInternal sample = read(args[2], population);
            Set<String> qis = new HashSet<String>();
            List<String> lines = Files.readAllLines(Paths.get(args[2]));
            for (String q : lines.get(0).split(",")) qis.add(q);
            RiskModelSampleSummary s = new RiskModelSampleSummary(sample, qis, threshold, new WrappedBoolean(), new WrappedInteger());
            RiskModelSampleSummary.ProsecutorRisk p = s.getProsecutorRisk();
            RiskModelSampleSummary.JournalistRisk j = s.getJournalistRisk();
            System.out.println(p.getHighestRisk() + " " + p.getRecordsAtRisk() + " " + p.getSuccessRate() + " "
                               + j.getHighestRisk() + " " + j.getRecordsAtRisk() + " " + j.getSuccessRate() + " "
                               + s.getMarketerRisk().getSuccessRate());
        }
    }
    static DataHandleInternal read(String path, DataHandleInternal superset) throws Exception {
        List<String> lines = Files.readAllLines(Paths.get(path));
        String[] header = lines.get(0).split(",");
        String[][] rows = new String[lines.size() - 1][];
        for (int i = 1; i < lines.size(); i++) rows[i - 1] = lines.get(i).split(",");
        return new DataHandleInternal(header, rows, superset);
    }
}
