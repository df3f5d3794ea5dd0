import re,sys,collections
def parse(path):
    ins=[]
    for line in open(path):
        m=re.match(r'\s*/\*([0-9a-f]{4,})\*/\s+(.*?);',line)
        if m: ins.append((int(m.group(1),16),m.group(2).strip()))
    return ins
for path in sys.argv[1:]:
    ins=parse(path)
    loops=[]
    for i,(a,t) in enumerate(ins):
        m=re.search(r'BRA\s+(?:`\(\.L_x_\d+\)|0x([0-9a-f]+))',t)
        m2=re.search(r'BRA.*?0x([0-9a-f]+)',t)
        if m2:
            tgt=int(m2.group(1),16)
            if tgt<a: loops.append((tgt,a))
    # labels form
    if not loops:
        pass
    big=max(loops,key=lambda l:l[1]-l[0]) if loops else None
    body=[t for a,t in ins if big and big[0]<=a<=big[1]]
    c=collections.Counter()
    for t in body:
        op=re.sub(r'^@!?U?P\w+\s+','',t).split()[0]
        base=op.split('.')[0]
        c[base]+=1
    print(path, 'loop', [hex(x) for x in big] if big else None, 'instructions', len(body))
    print('  ', ', '.join(f'{k} {v}' for k,v in c.most_common(25)))
