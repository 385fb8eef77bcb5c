#!/usr/bin/env python3
"""Counts (and with -l lists) the public/open declarations without a doc comment.

A declaration counts as documented when the line before it, skipping attribute lines, is a `///`
comment or ends a `/** … */` block. `extension` lines are not counted.

    python3 Scripts/undocumented-public.py Sources/CoreStack        # the count
    python3 Scripts/undocumented-public.py Sources/StackScope -l    # file:line of each
"""
import os, re, sys
DECL = re.compile(r'^\s*(?:@[\w.]+(?:\([^)]*\))?\s+)*(?:(?:nonisolated|final|static|class|override|required|convenience|mutating|indirect|dynamic|lazy|@\w+)\s+)*(?:public|open)\b(?:\s*\((?:set)\))?\s+(?!extension\b)(?:(?:internal|private|fileprivate)\(set\)\s+)?(?:(?:nonisolated|final|static|class|override|required|convenience|mutating|indirect|dynamic|lazy|weak|unowned|consuming|borrowing)\s+)*(func|var|let|init|class|struct|enum|protocol|typealias|subscript|actor|case|deinit|macro)\b')
ATTR = re.compile(r"^\s*(@[\w.]+(\([^)]*\))?\s*)+$")
def scan(root):
    out=[]
    total=0
    for d,_,fs in os.walk(root):
        for f in sorted(fs):
            if not f.endswith('.swift'): continue
            p=os.path.join(d,f)
            lines=open(p,encoding='utf-8').read().split('\n')
            for i,l in enumerate(lines):
                if l.lstrip().startswith('//'): continue
                if not DECL.match(l): continue
                total+=1
                j=i-1
                while j>=0 and ATTR.match(lines[j]): j-=1
                prev=lines[j].strip() if j>=0 else ''
                if prev.startswith('///') or prev.endswith('*/'): continue
                out.append((p,i+1,l.strip()))
    return total,out
if __name__=='__main__':
    root=sys.argv[1] if len(sys.argv)>1 else 'Sources'
    total,out=scan(root)
    if '-l' in sys.argv:
        for p,n,l in out: print(f'{p}:{n}: {l[:110]}')
    print(f'{root}: {len(out)} of {total} public/open declarations without a doc comment', file=sys.stderr)
