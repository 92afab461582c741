package org.deidentifier.arx;
/** Test stub (not ARX code): a sample with an optional population (superset); no outliers. */
public class DataHandleInternal extends DataHandle {
    private final DataHandleInternal superset;
    public DataHandleInternal(String[] header, String[][] rows, DataHandleInternal superset) { super(header, rows); this.superset = superset; }
    public DataHandleInternal getSuperset() { return superset; }
    public boolean isOutlier(int row, int[] indices) { return false; }
    public String getValue(int row, int column, boolean ignoreOutliers) { return rows[row][column]; }
}
