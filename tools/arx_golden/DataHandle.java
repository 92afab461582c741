package org.deidentifier.arx;
/** Test stub (not ARX code): rows of strings held in memory. */
public class DataHandle {
    protected final String[] header;
    protected final String[][] rows;
    public DataHandle(String[] header, String[][] rows) { this.header = header; this.rows = rows; }
    public String getValue(int row, int column) { return rows[row][column]; }
    public int getNumRows() { return rows.length; }
    public int getColumnIndexOf(String name) { for (int i = 0; i < header.length; i++) if (header[i].equals(name)) return i; return -1; }
}
